/**
 * Process lifetime for every mode: SIGTERM/SIGINT abort the signal handed to main; when main returns the
 * process exits 0. A second signal, or main still running after graceMs, exits 1. A failing main, an
 * unhandled rejection or an uncaught exception is logged in one line (its code and message; the stack only
 * from verbosity 4), then exits 1. The process is reached only through `proc`, so tests pass a fake.
 */
import { realClock } from '../clock.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { KvError } from '../errors/errors.ts';
import type { Logger } from '../log/log.ts';

export type ProcessEvent = 'SIGTERM' | 'SIGINT' | 'unhandledRejection' | 'uncaughtException';
export type ProcessListener = (arg: unknown) => void;

/** The parts of `process` this module uses. */
export interface ProcessLike {
  on(event: ProcessEvent, listener: ProcessListener): void;
  off(event: ProcessEvent, listener: ProcessListener): void;
  exit(code: number): void;
}

const nodeProcess: ProcessLike = {
  on: (event, listener): void => {
    process.on(event, listener);
  },
  off: (event, listener): void => {
    process.off(event, listener);
  },
  exit: (code): void => {
    process.exit(code);
  },
};

export interface RunUntilSignalOptions {
  log: Logger;
  /** How long main may take to return after the first signal (default 30 s). */
  graceMs?: number;
  proc?: ProcessLike;
  clock?: Clock;
}

const DEFAULT_GRACE_MS = 30_000;

/** Verbosity from which a failure line carries the stack (klog's V(4): debug detail). */
const STACK_VERBOSITY = 4;

/** One line: the reason (code and message), and the stack only when the logger's verbosity asks for it. */
function crashFields(log: Logger, err: unknown): Record<string, unknown> {
  const withStack = err instanceof Error && err.stack !== undefined && log.v(STACK_VERBOSITY).enabled();
  return withStack ? { reason: err, stack: err.stack } : { reason: err };
}

/** Runs main until it returns; resolves with the exit code after handing it to proc.exit (tests observe it). */
export function runUntilSignal(
  main: (signal: AbortSignal) => Promise<void>,
  opts: RunUntilSignalOptions,
): Promise<number> {
  const proc = opts.proc ?? nodeProcess;
  const clock = opts.clock ?? realClock;
  const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  const ac = new AbortController();
  let timer: TimerHandle | undefined;
  let done = false;
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));

  const exit = (code: number): void => {
    if (done) return;
    done = true;
    timer?.cancel();
    for (const [event, listener] of listeners) proc.off(event, listener);
    resolveExit(code);
    proc.exit(code);
  };
  const onSignal: ProcessListener = (sig) => {
    if (ac.signal.aborted) {
      opts.log.warning('second signal, exiting now', { signal: sig });
      exit(1);
      return;
    }
    opts.log.info('shutting down', { signal: sig, graceMs });
    ac.abort(new KvError('KV_ERR_SHUTDOWN', `received ${String(sig)}`));
    timer = clock.after(graceMs, () => {
      opts.log.error('graceful shutdown timed out', { graceMs });
      exit(1);
    });
  };
  const crash =
    (msg: string): ProcessListener =>
    (err) => {
      opts.log.error(msg, crashFields(opts.log, err));
      exit(1);
    };
  const listeners: [ProcessEvent, ProcessListener][] = [
    ['SIGTERM', onSignal],
    ['SIGINT', onSignal],
    ['unhandledRejection', crash('unhandled promise rejection')],
    ['uncaughtException', crash('uncaught exception')],
  ];
  for (const [event, listener] of listeners) proc.on(event, listener);

  const finished = (): void => {
    opts.log.info('stopped');
    exit(0);
  };
  const failed = (err: unknown): void => {
    // Rejecting with the abort reason is how many APIs end on shutdown: that is a clean stop.
    if (ac.signal.aborted && err === ac.signal.reason) {
      finished();
      return;
    }
    opts.log.error('main failed', crashFields(opts.log, err));
    exit(1);
  };
  try {
    main(ac.signal).then(finished, failed);
  } catch (err) {
    failed(err);
  }
  return exited;
}
