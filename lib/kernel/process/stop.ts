/**
 * Stopping a process by PID only, never by name: a signal (SIGTERM by default), then SIGKILL after a grace
 * period. Before each signal /proc is checked that the PID still runs the program, so a stale PID (from a state
 * file, a pid file) never kills an unrelated process that reused it.
 */
import { realClock, type Clock } from '../clock.ts';
import { KvError } from '../errors/errors.ts';
import { isRunning, type Program } from './proc.ts';

const POLL_MS = 20;

export interface StopOptions {
  readonly signal?: NodeJS.Signals;
  /** How long to wait after `signal` before SIGKILL. */
  readonly graceMs?: number;
  /** How long to wait after SIGKILL before failing with KV_ERR_TIMEOUT. */
  readonly killWaitMs?: number;
  /** Whether pid still runs program: isRunning by default; cmdlineShows for a PID that is not our child. */
  readonly runs?: (pid: number, program: Program) => boolean;
  readonly clock?: Clock;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ESRCH') throw err;
  }
}

/** Polls runs until it is false (true) or timeoutMs has passed (false). */
async function waitGone(runs: () => boolean, timeoutMs: number, clock: Clock): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  while (runs()) {
    if (clock.now() >= deadline) return false;
    await clock.sleep(POLL_MS);
  }
  return true;
}

const stuck = (pid: number, program: Program): KvError =>
  new KvError(
    'KV_ERR_TIMEOUT',
    `process ${pid}${typeof program === 'string' ? ` (${program})` : ''} did not exit after SIGKILL`,
  );

/** Sends the signal, then SIGKILL after the grace; resolves once pid no longer runs program. */
export async function stopProcess(pid: number, program: Program, o: StopOptions = {}): Promise<void> {
  const clock = o.clock ?? realClock;
  const check = o.runs ?? isRunning;
  const runs = (): boolean => check(pid, program);
  if (!runs()) return;
  const sig = o.signal ?? 'SIGTERM';
  signal(pid, sig);
  if (sig !== 'SIGKILL' && (await waitGone(runs, o.graceMs ?? 10_000, clock))) return;
  if (runs()) signal(pid, 'SIGKILL');
  if (!(await waitGone(runs, o.killWaitMs ?? 10_000, clock))) throw stuck(pid, program);
}
