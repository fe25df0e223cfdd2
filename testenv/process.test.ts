import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProcess, execs, isRunning, startProcess, stopProcess, wrapperOf } from './process.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-process-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `sh -c script` and waits until it has printed "ready" to its log. */
async function shell(
  name: string,
  script: string,
  detached = false,
): Promise<{ pid: number; logFile: string }> {
  const logFile = join(dir, `${name}.log`);
  const pid = await startProcess({ bin: '/bin/sh', args: ['-c', script], logFile, detached });
  for (let i = 0; i < 250 && !(existsSync(logFile) && readFileSync(logFile, 'utf8').includes('ready')); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return { pid, logFile };
}

const LOOP = 'while :; do sleep 1; done';

describe('child processes by PID', () => {
  it('appends output to the log file and stops the process with SIGTERM', async () => {
    const { pid, logFile } = await shell('term', `echo ready; ${LOOP}`);
    expect(isRunning(pid, '/bin/sh')).toBe(true);
    await stopProcess(pid, '/bin/sh');
    expect(isRunning(pid)).toBe(false);
    expect(readFileSync(logFile, 'utf8')).toBe('ready\n');
  });

  it('falls back to SIGKILL when the process ignores SIGTERM', async () => {
    const { pid } = await shell('stubborn', `trap '' TERM; echo ready; ${LOOP}`, true);
    await stopProcess(pid, '/bin/sh', { graceMs: 300 });
    expect(isRunning(pid)).toBe(false);
  });

  it('never signals a PID that runs another binary', async () => {
    const { pid } = await shell('other', `echo ready; ${LOOP}`);
    await stopProcess(pid, '/bin/not-sh');
    expect(isRunning(pid, '/bin/not-sh')).toBe(false);
    expect(isRunning(pid, '/bin/sh')).toBe(true);
    expect([execs(pid, '/bin/sh'), execs(pid, '/bin/not-sh')]).toEqual([true, false]);
    await stopProcess(pid, '/bin/sh', { signal: 'SIGKILL' });
    expect(execs(pid, '/bin/sh')).toBe(false);
    expect(isRunning(pid)).toBe(false);
  });

  it('knows a start wrapper by its command line, a tail of the spawned one, until it runs the binary', async () => {
    const script = `echo ready; ${LOOP}`;
    const { pid } = await shell('wrapper', script);
    const line = ['unshare', '-m', '--', '/bin/sh', '-c', script];
    expect(wrapperOf(pid, line, '/bin/kubelet')).toBe('/bin/sh');
    expect(wrapperOf(pid, ['unshare', '/bin/sh', '-c', 'other'], '/bin/kubelet')).toBeUndefined();
    expect(wrapperOf(pid, line, '/bin/sh')).toBeUndefined();
    await stopProcess(pid, '/bin/sh', { signal: 'SIGKILL' });
    expect(wrapperOf(pid, line, '/bin/kubelet')).toBeUndefined();
  });

  it('fails with the log path when the binary cannot start', async () => {
    const logFile = join(dir, 'missing.log');
    await expect(
      startProcess({ bin: '/nonexistent/bin', args: [], logFile, detached: false }),
    ).rejects.toThrow(logFile);
  });

  it.each([0, -1, 1.5])('treats pid %p as not running', (pid) => {
    expect(isRunning(pid)).toBe(false);
  });
});

describe('describeProcess', () => {
  it('names the state and the program of a live process, and says when there is none', () => {
    expect(describeProcess(process.pid)).toMatch(/^state [RS], argv\[0\] ".*node.*"$/);
    expect(describeProcess(2 ** 22 + 1)).toBe('no such process');
  });
});
