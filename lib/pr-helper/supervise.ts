/**
 * qemu-pr-helper kept running (kubevirt cmd/pr-helper: the container's one process): `-k <socket>` in the
 * foreground (no `--daemon`, so no pid file), its stdout and stderr to the given log. When it exits it is started
 * again after an exponential backoff (base doubling to max), back to base once a run has lasted resetAfterMs;
 * each restart counts in kubevirt_pr_helper_restarts_total. The socket path is prepared before every start
 * (socket-dir.ts), so a socket left by a killed helper does not stop the next one. On abort the helper gets
 * SIGTERM, then SIGKILL after graceMs.
 */
import type { Counter } from 'prom-client';
import type { Clock } from '../kernel/clock.ts';
import { errorMessage } from '../kernel/errors/errors.ts';
import type { Logger } from '../kernel/log/log.ts';
import { spawnProcess, stopChild, type ChildHandle, type SpawnSpec } from '../kernel/process/spawn.ts';
import { untilAborted } from '../kernel/runtime/role.ts';
import { ItemExponentialFailureRateLimiter } from '../kernel/workqueue/rate-limiters.ts';
import { prepareSocketPath } from './socket-dir.ts';

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
  /** A run at least this long starts the next backoff from baseMs again. */
  readonly resetAfterMs: number;
}

export interface SuperviseOptions {
  readonly binary: string;
  readonly socket: string;
  readonly log: SpawnSpec['log'];
  readonly backoff: Backoff;
  readonly graceMs: number;
  readonly restarts: Counter;
  readonly logger: Logger;
  readonly clock: Clock;
}

const HELPER = 'helper';

async function start(o: SuperviseOptions): Promise<ChildHandle> {
  const removed = await prepareSocketPath(o.socket);
  if (removed) o.logger.info('removed a stale pr-helper socket', { socket: o.socket });
  const child = await spawnProcess({ bin: o.binary, args: ['-k', o.socket], log: o.log });
  o.logger.info('qemu-pr-helper started', { pid: child.pid, socket: o.socket });
  return child;
}

/** Runs the helper until signal aborts, starting it again when it exits; the first start must succeed. */
export async function superviseHelper(o: SuperviseOptions, signal: AbortSignal): Promise<void> {
  const backoff = new ItemExponentialFailureRateLimiter<string>(o.backoff.baseMs, o.backoff.maxMs);
  const aborted = untilAborted(signal).then(() => 'aborted' as const);
  let child: ChildHandle | undefined = await start(o);
  for (;;) {
    let exitCode: number | null | undefined;
    if (child !== undefined) {
      const startedAt = o.clock.now();
      const code = await Promise.race([child.exited, aborted]);
      if (code === 'aborted') break;
      exitCode = code;
      if (o.clock.now() - startedAt >= o.backoff.resetAfterMs) backoff.forget(HELPER);
    }
    const delayMs = backoff.when(HELPER);
    o.logger.warning('qemu-pr-helper is not running: starting it again', {
      ...(child !== undefined && { pid: child.pid, exitCode }),
      delayMs,
    });
    try {
      await o.clock.sleep(delayMs, signal);
    } catch {
      break;
    }
    o.restarts.inc();
    child = await start(o).catch((err: unknown) => {
      o.logger.warning('cannot start qemu-pr-helper', { reason: errorMessage(err) });
      return undefined;
    });
  }
  if (child !== undefined) await stopChild(child, o.graceMs, o.clock);
}
