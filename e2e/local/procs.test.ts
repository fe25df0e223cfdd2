import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { isRunning } from '../../lib/kernel/process/proc.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { startLocal, stopLocal, wrapperOf } from './procs.ts';
import type { LocalProcess } from './state.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-procs-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** bin started through `env` and `sh -c script`, as the kubelet starts through unshare and its shield script. */
async function wrapped(name: string, script: string): Promise<LocalProcess> {
  const logFile = join(dir, `${name}.log`);
  const p: LocalProcess = {
    bin: '/bin/sleep',
    args: ['60'],
    logFile,
    pid: 0,
    spawn: { cmd: '/usr/bin/env', args: ['/bin/sh', '-c', script] },
  };
  await startLocal(p);
  for (let i = 0; i < 250 && !(existsSync(logFile) && readFileSync(logFile, 'utf8').includes('ready')); i++) {
    await realClock.sleep(20);
  }
  return p;
}

describe('stopLocal', () => {
  it('stops a process still in its start wrapper, which would otherwise exec the binary later (here after 30 s)', async () => {
    const p = await wrapped(
      'stuck',
      'echo ready; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; exec /bin/sleep 60',
    );
    const pid = p.pid;
    expect(isRunning(pid, '/bin/sh')).toBe(true);
    await stopLocal(p);
    expect([isRunning(pid), p.pid]).toEqual([false, 0]);
  });

  it("stops the binary once the wrapper has exec'd it", async () => {
    const p = await wrapped('execd', 'echo ready; exec /bin/sleep 60');
    const pid = p.pid;
    for (let i = 0; i < 250 && !isRunning(pid, '/bin/sleep'); i++) await realClock.sleep(20);
    await stopLocal(p, 2_000);
    expect([isRunning(pid), p.pid]).toEqual([false, 0]);
  });
});

describe('wrapperOf', () => {
  it('knows a start wrapper by its command line, a tail of the spawned one, until it runs the binary', async () => {
    const script = 'echo ready; while :; do sleep 1; done';
    const p = await wrapped('wrapper', script);
    const line = ['unshare', '-m', '--', '/bin/sh', '-c', script];
    expect(wrapperOf(p.pid, line, '/bin/kubelet')).toBe('/bin/sh');
    expect(wrapperOf(p.pid, ['unshare', '/bin/sh', '-c', 'other'], '/bin/kubelet')).toBeUndefined();
    expect(wrapperOf(p.pid, line, '/bin/sh')).toBeUndefined();
    await stopProcess(p.pid, '/bin/sh', { signal: 'SIGKILL' });
    expect(wrapperOf(p.pid, line, '/bin/kubelet')).toBeUndefined();
  });
});
