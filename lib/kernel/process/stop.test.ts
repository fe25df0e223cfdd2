import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvError } from '../errors/errors.ts';
import { cmdlineShows, isRunning } from './proc.ts';
import { stopProcess } from './stop.ts';
import { LOOP, startShell, startZombie } from './testing/shell.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-stop-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('stopProcess', () => {
  it('stops the process with SIGTERM, its log kept', async () => {
    const { child, logFile } = await startShell(dir, 'term', `echo ready; ${LOOP}`);
    await stopProcess(child.pid, '/bin/sh');
    expect(isRunning(child.pid)).toBe(false);
    expect(await child.exited).toBeNull();
    expect(readFileSync(logFile, 'utf8')).toBe('ready\n');
  });

  it('falls back to SIGKILL when the process ignores SIGTERM', async () => {
    const { child } = await startShell(dir, 'stubborn', `trap '' TERM; echo ready; ${LOOP}`, {
      detached: true,
    });
    const started = Date.now();
    await stopProcess(child.pid, '/bin/sh', { graceMs: 300 });
    expect(isRunning(child.pid)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('sends SIGKILL at once when asked to', async () => {
    const { child } = await startShell(dir, 'kill', `trap '' TERM; echo ready; ${LOOP}`);
    await stopProcess(child.pid, '/bin/sh', { signal: 'SIGKILL', graceMs: 60_000 });
    expect(isRunning(child.pid)).toBe(false);
  });

  it('never signals a PID that runs another program', async () => {
    const { child } = await startShell(dir, 'other', `echo ready; ${LOOP}`);
    await stopProcess(child.pid, '/bin/not-sh');
    await stopProcess(child.pid, (argv) => argv.includes('other'), { runs: cmdlineShows });
    expect(isRunning(child.pid, '/bin/sh')).toBe(true);
    await stopProcess(child.pid, (argv) => argv.at(-1)?.endsWith(LOOP) === true, { runs: cmdlineShows });
    // cmdlineShows lets the stop end at the zombie; isRunning counts one until this process reaps it.
    expect(await child.exited).toBeNull();
    expect(isRunning(child.pid)).toBe(false);
  });

  it('fails with KV_ERR_TIMEOUT when the process is still there after SIGKILL', async () => {
    // A zombie is beyond signals; `runs` that always answers yes makes it one that never goes.
    const z = await startZombie(dir, 'zombie');
    const stop = stopProcess(z.pid, '/bin/sleep', { runs: () => true, graceMs: 50, killWaitMs: 100 });
    await expect(stop).rejects.toThrow(KvError);
    await expect(stop).rejects.toMatchObject({ code: 'KV_ERR_TIMEOUT' });
    await stopProcess(z.parent.pid, '/bin/sleep');
  });
});
