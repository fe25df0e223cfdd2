import { afterAll, describe, expect, it } from '@jest/globals';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../testing/wait.ts';
import { cmdlineShows, describeProcess, isRunning, liveCmdline } from './proc.ts';
import { spawnProcess } from './spawn.ts';
import { stopProcess } from './stop.ts';
import { LOOP, startShell, startZombie } from './testing/shell.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-proc-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const PF_KTHREAD = 0x00200000;

/** A kernel thread (kthreadd is PID 2 on a host): live, and its /proc/PID/cmdline reads empty. */
function kernelThread(): number {
  for (const e of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const stat = existsSync(`/proc/${e}/stat`) ? readFileSync(`/proc/${e}/stat`, 'utf8') : '';
    // Field 9 of /proc/PID/stat, the task's flags.
    const flags = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[6]);
    if ((flags & PF_KTHREAD) !== 0) return Number(e);
  }
  throw new Error('no kernel thread in /proc (a PID namespace hides them)');
}

describe('isRunning and cmdlineShows', () => {
  it('see a live process run its program, and nothing once it is gone', async () => {
    const { child } = await startShell(dir, 'live', `echo ready; ${LOOP}`);
    expect([
      isRunning(child.pid),
      isRunning(child.pid, '/bin/sh'),
      isRunning(child.pid, '/bin/not-sh'),
    ]).toEqual([true, true, false]);
    expect([cmdlineShows(child.pid, '/bin/sh'), cmdlineShows(child.pid, '/bin/not-sh')]).toEqual([
      true,
      false,
    ]);
    expect(cmdlineShows(child.pid, (argv) => argv.at(-1) === `echo ready; ${LOOP}`)).toBe(true);
    await stopProcess(child.pid, '/bin/sh', { signal: 'SIGKILL' });
    expect([
      isRunning(child.pid),
      isRunning(child.pid, '/bin/sh'),
      cmdlineShows(child.pid, '/bin/sh'),
    ]).toEqual([false, false, false]);
  });

  it('know a script its interpreter runs by its path, argv[1]', async () => {
    const script = join(dir, 'script.sh');
    writeFileSync(script, `#!/bin/sh\necho ready\n${LOOP}\n`);
    chmodSync(script, 0o755);
    const child = await spawnProcess({ bin: script, args: [], log: join(dir, 'script.log') });
    await waitFor(() => liveCmdline(child.pid)?.[1] === script, 'the script to run');
    expect([isRunning(child.pid, script), cmdlineShows(child.pid, script)]).toEqual([true, true]);
    await stopProcess(child.pid, script);
    expect(await child.exited).toBeNull();
  });

  it('isRunning counts an empty command line (a kernel thread) as running; cmdlineShows never does', () => {
    const k = kernelThread();
    expect(liveCmdline(k)).toEqual([]);
    expect([isRunning(k), isRunning(k, '/bin/sh')]).toEqual([true, true]);
    expect([cmdlineShows(k, '/bin/sh'), cmdlineShows(k, () => true)]).toEqual([false, false]);
  });

  it('neither takes a zombie for running', async () => {
    const z = await startZombie(dir, 'zombie');
    expect([isRunning(z.pid), isRunning(z.pid, '/bin/sleep'), cmdlineShows(z.pid, () => true)]).toEqual([
      false,
      false,
      false,
    ]);
    expect(liveCmdline(z.pid)).toBeUndefined();
    expect(describeProcess(z.pid)).toBe('state Z, argv[0] ""');
    await stopProcess(z.parent.pid, '/bin/sleep');
  });

  it.each([0, -1, 1.5])('treat pid %p as not running', (pid) => {
    expect([isRunning(pid), cmdlineShows(pid, () => true)]).toEqual([false, false]);
  });
});

describe('describeProcess', () => {
  it('names the state and the program of a live process, and says when there is none', () => {
    expect(describeProcess(process.pid)).toMatch(/^state [RS], argv\[0\] ".*node.*"$/);
    expect(describeProcess(2 ** 22 + 1)).toBe('no such process');
  });
});
