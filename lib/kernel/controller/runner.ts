/**
 * The worker runner: N async workers loop get → reconcile(key) → outcome (controller-runtime
 * `pkg/internal/controller/controller.go:reconcileHandler`):
 * - returned nothing → forget (backoff reset);
 * - returned { requeueAfterMs } → forget, then add after the delay;
 * - threw → addRateLimited, warning logged;
 * - threw TerminalError → forget, error logged and counted, no retry.
 * The queue guarantees one key is never reconciled by two workers at once.
 */
import { randomUUID } from 'node:crypto';
import { KvError, TerminalError } from '../errors/errors.ts';
import type { Logger } from '../log/log.ts';
import type { WorkQueue } from '../workqueue/queue.ts';
import type { ControllerMetrics, ReconcileOutcome } from './metrics.ts';

// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a reconciler may simply return
export type ReconcileResult = { requeueAfterMs?: number } | void;

export interface ReconcileContext {
  /** Carries controller, key and reconcileID. */
  log: Logger;
  reconcileID: string;
}

export type Reconciler<K = string> = (key: K, ctx: ReconcileContext) => Promise<ReconcileResult>;

export interface RunControllerOptions<K> {
  name: string;
  queue: WorkQueue<K>;
  workers: number;
  reconcile: Reconciler<K>;
  log: Logger;
  metrics?: ControllerMetrics;
  /** On abort the queue is shut down; in-flight reconciles finish, then runController resolves. */
  signal: AbortSignal;
}

type Outcome =
  | { result: 'success' }
  | { result: 'requeue'; afterMs: number }
  | { result: 'error' | 'terminal'; err: unknown };

async function reconcileOnce<K>(reconcile: Reconciler<K>, key: K, ctx: ReconcileContext): Promise<Outcome> {
  try {
    const r = await reconcile(key, ctx);
    const afterMs = r?.requeueAfterMs;
    return afterMs === undefined ? { result: 'success' } : { result: 'requeue', afterMs };
  } catch (err) {
    return { result: err instanceof TerminalError ? 'terminal' : 'error', err };
  }
}

async function processKey<K>(opts: RunControllerOptions<K>, log: Logger, key: K): Promise<void> {
  const { queue } = opts;
  const reconcileID = randomUUID();
  const keyLog = log.with({ key, reconcileID });
  const outcome = await reconcileOnce(opts.reconcile, key, { log: keyLog, reconcileID });
  opts.metrics?.reconciled(opts.name, outcome.result satisfies ReconcileOutcome);
  switch (outcome.result) {
    case 'success':
      queue.forget(key);
      return;
    case 'requeue':
      queue.forget(key);
      queue.addAfter(key, outcome.afterMs);
      return;
    case 'terminal':
      queue.forget(key);
      keyLog.error('reconcile failed with a terminal error, not retrying', { reason: outcome.err });
      return;
    case 'error':
      queue.addRateLimited(key);
      keyLog.warning('reconcile failed, requeuing', { reason: outcome.err, retries: queue.numRequeues(key) });
      return;
  }
}

async function worker<K>(opts: RunControllerOptions<K>, log: Logger): Promise<void> {
  for (let key = await opts.queue.get(); key !== undefined; key = await opts.queue.get()) {
    try {
      await processKey(opts, log, key);
    } finally {
      opts.queue.done(key);
    }
  }
}

/** Runs the workers until the signal aborts and the queue is drained. */
export async function runController<K = string>(opts: RunControllerOptions<K>): Promise<void> {
  if (!Number.isInteger(opts.workers) || opts.workers < 1) {
    throw new KvError('KV_ERR_CONFIG', `workers must be a positive integer, got ${opts.workers}`);
  }
  const { queue, signal } = opts;
  const log = opts.log.with({ controller: opts.name });
  let drained = Promise.resolve();
  const stop = (): void => {
    drained = queue.shutDownWithDrain();
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });

  log.info('starting workers', { workers: opts.workers });
  await Promise.all(Array.from({ length: opts.workers }, () => worker(opts, log)));
  signal.removeEventListener('abort', stop);
  await drained;
  log.info('workers stopped');
}
