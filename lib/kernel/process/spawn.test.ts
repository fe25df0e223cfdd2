import { afterAll, describe, expect, it } from '@jest/globals';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess, stopChild } from './spawn.ts';
import { LOOP, startShell } from './testing/shell.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-spawn-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Fields 5 and 6 of /proc/PID/stat: the process group and the session. */
function groupAndSession(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(f[2]), Number(f[3])];
}

describe('spawnProcess', () => {
  it('appends stdout and stderr to the log file and resolves the exit code', async () => {
    const logFile = join(dir, 'append.log');
    writeFileSync(logFile, 'before\n');
    const child = await spawnProcess({
      bin: '/bin/sh',
      args: ['-c', 'echo out; echo err >&2; exit 3'],
      log: logFile,
    });
    expect(await child.exited).toBe(3);
    expect(child.running()).toBe(false);
    expect(readFileSync(logFile, 'utf8')).toBe('before\nout\nerr\n');
  });

  it('writes to a descriptor the caller keeps, with the environment and user given', async () => {
    const path = join(dir, 'fd.log');
    const fd = openSync(path, 'w');
    try {
      const user = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
      const child = await spawnProcess({
        bin: '/bin/sh',
        args: ['-c', 'echo "$GREETING $(id -u):$(id -g)"'],
        log: { fd, path },
        env: { GREETING: 'hello', PATH: '/usr/bin:/bin' },
        user,
      });
      expect(await child.exited).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(`hello ${user.uid}:${user.gid}\n`);
    } finally {
      closeSync(fd);
    }
  });

  it('starts a detached child in its own session and process group, others in ours', async () => {
    const own = await startShell(dir, 'detached', `echo ready; ${LOOP}`, { detached: true });
    const ours = await startShell(dir, 'attached', `echo ready; ${LOOP}`);
    expect(groupAndSession(own.child.pid)).toEqual([own.child.pid, own.child.pid]);
    expect(groupAndSession(ours.child.pid)).toEqual(groupAndSession(process.pid));
    await stopChild(own.child, 5000);
    await stopChild(ours.child, 5000);
  });

  it('fails with the log path when the binary cannot start', async () => {
    const logFile = join(dir, 'missing.log');
    await expect(spawnProcess({ bin: '/nonexistent/bin', args: [], log: logFile })).rejects.toThrow(
      `cannot start /nonexistent/bin (log: ${logFile})`,
    );
  });
});

describe('stopChild', () => {
  it('stops the child with SIGTERM and resolves once it is reaped', async () => {
    const { child } = await startShell(dir, 'term', `echo ready; ${LOOP}`);
    await stopChild(child, 60_000);
    expect(child.running()).toBe(false);
    expect(await child.exited).toBeNull();
  });

  it('falls back to SIGKILL after the grace period, and does nothing for a child already gone', async () => {
    const { child } = await startShell(dir, 'stubborn', `trap '' TERM; echo ready; ${LOOP}`);
    const started = Date.now();
    await stopChild(child, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(child.running()).toBe(false);
    await stopChild(child, 300);
  });
});
