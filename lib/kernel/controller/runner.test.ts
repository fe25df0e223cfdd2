import { describe, it, expect } from '@jest/globals';
import { Registry } from 'prom-client';
import { FakeClock } from '../clock.ts';
import { TerminalError } from '../errors/errors.ts';
import { memoryLogger } from '../log/log.ts';
import { WorkQueue } from '../workqueue/queue.ts';
import { controllerMetricsFor } from './metrics.ts';
import { runController } from './runner.ts';
import type { ReconcileResult, Reconciler } from './runner.ts';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

interface Gate {
  promise: Promise<void>;
  open: () => void;
}
function gate(): Gate {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function setup(reconcile: Reconciler, workers = 2) {
  const clock = new FakeClock();
  const registry = new Registry();
  const queue = new WorkQueue({ name: 'test', clock });
  const { log, lines } = memoryLogger();
  const ac = new AbortController();
  const done = runController({
    name: 'ctl',
    queue,
    workers,
    reconcile,
    log,
    metrics: controllerMetricsFor(registry),
    signal: ac.signal,
  });
  const counter = async (result: string): Promise<number> => {
    const m = await registry.getSingleMetric('kubevirt_controller_reconcile_total')?.get();
    return m?.values.find((v) => v.labels['result'] === result)?.value ?? 0;
  };
  return { clock, queue, lines, ac, done, registry, counter };
}

describe('runController', () => {
  it('never reconciles one key concurrently, and re-runs it when re-added during processing', async () => {
    const calls: string[] = [];
    const active = new Set<string>();
    let overlap = false;
    const gates = [gate(), gate()];
    const reconcile = async (key: string): Promise<ReconcileResult> => {
      if (active.has(key)) overlap = true;
      active.add(key);
      calls.push(key);
      if (key === 'a') await gates[calls.filter((k) => k === 'a').length - 1]?.promise;
      active.delete(key);
    };
    const { queue, ac, done } = setup(reconcile, 3);
    queue.add('a');
    await flush();
    queue.add('a');
    queue.add('b');
    await flush();
    expect(calls).toEqual(['a', 'b']);
    gates[0]?.open();
    await flush();
    expect(calls).toEqual(['a', 'b', 'a']);
    gates[1]?.open();
    await flush();
    expect(overlap).toBe(false);
    ac.abort();
    await done;
  });

  it('retries a failing key with exponential backoff, then forgets it on success', async () => {
    let n = 0;
    const reconcile = (): Promise<ReconcileResult> => {
      n++;
      return n <= 2 ? Promise.reject(new Error('boom')) : Promise.resolve();
    };
    const { clock, queue, lines, ac, done, counter } = setup(reconcile);
    queue.add('a');
    await flush();
    expect(n).toBe(1);
    clock.advance(4);
    await flush();
    expect(n).toBe(1);
    clock.advance(1); // 5 ms
    await flush();
    expect(n).toBe(2);
    clock.advance(9);
    await flush();
    expect(n).toBe(2);
    clock.advance(1); // 10 ms
    await flush();
    expect(n).toBe(3);
    expect(queue.numRequeues('a')).toBe(0);
    expect(lines.filter((l) => l['level'] === 'warning')).toEqual([
      expect.objectContaining({
        msg: 'reconcile failed, requeuing',
        controller: 'ctl',
        key: 'a',
        reason: 'boom',
      }),
      expect.objectContaining({ retries: 2 }),
    ]);
    expect([await counter('error'), await counter('success')]).toEqual([2, 1]);
    ac.abort();
    await done;
  });

  it('does not retry a TerminalError, logs and counts it', async () => {
    let n = 0;
    const reconcile = (): Promise<ReconcileResult> => {
      n++;
      return Promise.reject(new TerminalError('bad spec'));
    };
    const { clock, queue, lines, ac, done, registry, counter } = setup(reconcile);
    queue.add('a');
    await flush();
    clock.advance(1_000_000);
    await flush();
    expect(n).toBe(1);
    expect(clock.pendingCount).toBe(0);
    expect(queue.numRequeues('a')).toBe(0);
    expect(lines.filter((l) => l['level'] === 'error')).toEqual([
      expect.objectContaining({ key: 'a', reason: 'KV_ERR_TERMINAL: bad spec' }),
    ]);
    expect(await counter('terminal')).toBe(1);
    expect(await registry.metrics()).toContain(
      'kubevirt_controller_terminal_errors_total{controller="ctl"} 1',
    );
    ac.abort();
    await done;
  });

  it('requeueAfterMs adds the key again after the delay with no backoff', async () => {
    let n = 0;
    const reconcile = (): Promise<ReconcileResult> => {
      n++;
      return Promise.resolve(n === 1 ? { requeueAfterMs: 1000 } : undefined);
    };
    const { clock, queue, ac, done, counter } = setup(reconcile);
    queue.add('a');
    await flush();
    clock.advance(999);
    await flush();
    expect(n).toBe(1);
    clock.advance(1);
    await flush();
    expect(n).toBe(2);
    expect(queue.numRequeues('a')).toBe(0);
    expect([await counter('requeue'), await counter('success')]).toEqual([1, 1]);
    ac.abort();
    await done;
  });

  it('on abort stops taking new keys and resolves once in-flight reconciles finish', async () => {
    const g = gate();
    let finished = false;
    const reconcile = async (): Promise<ReconcileResult> => {
      await g.promise;
      finished = true;
    };
    const { queue, ac, done } = setup(reconcile);
    queue.add('a');
    await flush();
    let resolved = false;
    void done.then(() => (resolved = true));
    ac.abort();
    await flush();
    expect(queue.isShuttingDown()).toBe(true);
    expect(resolved).toBe(false);
    queue.add('b'); // refused after shutdown
    g.open();
    await done;
    expect(finished).toBe(true);
    expect(queue.len()).toBe(0);
  });

  it('passes a per-key logger and reconcileID to the reconciler', async () => {
    const ids: string[] = [];
    const reconcile: Reconciler = (_key, ctx) => {
      ids.push(ctx.reconcileID);
      ctx.log.info('hello');
      return Promise.resolve();
    };
    const { queue, lines, ac, done } = setup(reconcile);
    queue.add('a');
    await flush();
    queue.add('a');
    await flush();
    expect(new Set(ids).size).toBe(2);
    expect(lines.filter((l) => l['msg'] === 'hello')).toEqual([
      expect.objectContaining({ controller: 'ctl', key: 'a', reconcileID: ids[0] }),
      expect.objectContaining({ reconcileID: ids[1] }),
    ]);
    ac.abort();
    await done;
  });

  it.each([0, -1, 1.5])('rejects %p workers', async (workers) => {
    const queue = new WorkQueue({ name: 'x', clock: new FakeClock() });
    const { log } = memoryLogger();
    const run = runController({
      name: 'x',
      queue,
      workers,
      reconcile: () => Promise.resolve(),
      log,
      signal: new AbortController().signal,
    });
    await expect(run).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
  });
});
