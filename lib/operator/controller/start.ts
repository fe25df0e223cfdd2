/**
 * Runs the operator's controller while this replica leads (kubevirt cmd/virt-operator → KubeVirtController.Run):
 * its caches started and synced, then the worker, until the signal aborts.
 */
import type { Registry } from 'prom-client';
import type { Clock } from '../../kernel/clock.ts';
import { controllerMetricsFor } from '../../kernel/controller/metrics.ts';
import { runController } from '../../kernel/controller/runner.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { workQueueMetricsFor } from '../../kernel/workqueue/metrics.ts';
import { WorkQueue } from '../../kernel/workqueue/queue.ts';
import type { OperatorEnv } from '../config/from-kubevirt.ts';
import type { CertificateIssuer } from '../generate/certs/issuer.ts';
import { operatorCaches, wakeKubeVirts } from './caches.ts';
import { operatorReconciler } from './controller.ts';
import { statusWriter } from './status-writer.ts';

export interface OperatorControllerOptions {
  /** Speaks kubevirt.io (the rewriting client). */
  readonly kubevirtClient: KubeClient;
  /** Speaks the stored names. */
  readonly client: KubeClient;
  readonly env: OperatorEnv;
  readonly operatorVersion: string;
  readonly issuer: CertificateIssuer;
  readonly clock: Clock;
  readonly log: Logger;
  readonly registry: Registry;
  /** Informer resync (default 5 min). */
  readonly resyncPeriodMs?: number;
}

const QUEUE = 'virt-operator';

/** Resolves once the signal aborted and the worker and the caches stopped. */
export async function runOperatorController(
  o: OperatorControllerOptions,
  signal: AbortSignal,
): Promise<void> {
  const caches = operatorCaches({
    kubevirtClient: o.kubevirtClient,
    client: o.client,
    namespace: o.env.namespace,
    clock: o.clock,
    log: o.log,
    resyncPeriodMs: o.resyncPeriodMs ?? 5 * 60 * 1000,
  });
  const queue = new WorkQueue<string>({
    name: QUEUE,
    clock: o.clock,
    metrics: workQueueMetricsFor(o.registry),
  });
  wakeKubeVirts(caches, (key) => {
    queue.add(key);
  });
  const informers = caches.all();
  const runs = Promise.all(informers.map((inf) => inf.run(signal)));
  const synced = await Promise.all(informers.map((inf) => inf.waitForSync(signal)));
  if (!synced.every(Boolean)) {
    queue.shutDown();
    await runs;
    return;
  }
  o.log.info('caches synced, starting the operator');
  await runController({
    name: QUEUE,
    queue,
    workers: 1,
    reconcile: operatorReconciler({
      caches,
      client: o.client,
      kubevirtClient: o.kubevirtClient,
      status: statusWriter(o.kubevirtClient, o.clock),
      env: o.env,
      operatorVersion: o.operatorVersion,
      issuer: o.issuer,
      clock: o.clock,
      log: o.log,
    }),
    log: o.log,
    metrics: controllerMetricsFor(o.registry),
    signal,
  });
  await runs;
}
