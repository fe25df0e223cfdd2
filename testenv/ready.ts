/**
 * Bounded readiness waits for the control plane's processes: poll a probe until it passes, fail fast
 * when the process died, and on failure name the log file and show its tail.
 */
import { readFile } from 'node:fs/promises';
import { realClock } from '../lib/kernel/clock.ts';
import { KvError } from '../lib/kernel/errors/errors.ts';
import { describeProcess, isRunning } from '../lib/kernel/process/proc.ts';

export interface WaitOptions {
  what: string;
  pid: number;
  bin: string;
  logFile: string;
  timeoutMs: number;
}

async function logTail(path: string, lines = 15): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function failure(o: WaitOptions, why: string): Promise<KvError> {
  const tail = await logTail(o.logFile);
  return new KvError('KV_ERR_TIMEOUT', `${o.what} ${why}; see ${o.logFile}; last lines:\n${tail}`);
}

/** Resolves once probe() is true; rejects when the process exits or timeoutMs passes. */
export async function waitUntilReady(probe: () => Promise<boolean>, o: WaitOptions): Promise<void> {
  const deadline = realClock.now() + o.timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (!isRunning(o.pid, o.bin))
      throw await failure(o, `exited before it was ready (pid ${o.pid}: ${describeProcess(o.pid)})`);
    if (realClock.now() >= deadline) throw await failure(o, `was not ready within ${o.timeoutMs} ms`);
    await realClock.sleep(200);
  }
}
