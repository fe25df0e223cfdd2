/**
 * startControllers: the controllers of the `controller` role (controllers.ts), on shared informers, each with
 * its own work queue and workers. Each controller registers its watches, the registry builds one informer per
 * resource, and the controllers are built on their caches. Informers start at once; workers start when every
 * cache has synced (kubevirt watch/application.go onStartedLeading). Everything stops when the signal aborts:
 * queues drain, in-flight reconciles finish, informers stop.
 */
import type { Registry } from 'prom-client';
import { realClock, type Clock } from '../kernel/clock.ts';
import { controllerMetricsFor } from '../kernel/controller/metrics.ts';
import { runController } from '../kernel/controller/runner.ts';
import { PODS } from '../kernel/kube/resources.ts';
import type { KubeClient } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import { workQueueMetricsFor } from '../kernel/workqueue/metrics.ts';
import { WorkQueue } from '../kernel/workqueue/queue.ts';
import { ApiEventRecorder } from '../kernel/controller/events.ts';
import { CONTROLLERS } from './controllers.ts';
import { evacuationController } from './evacuation/definition.ts';
import type { ControllerDefinition, ControllerSettings } from './definition.ts';
import { InformerRegistry, type InformerRegistryOptions } from './registry.ts';

export interface StartControllersOptions extends ControllerSettings {
  /** Speaks kubevirt.io (a rewritingClient where the cluster stores the internal names). */
  client: KubeClient;
  /** Watch one namespace only (tests, benches); all namespaces when unset. Nodes are always cluster-wide. */
  namespace?: string;
  /** Watch Pods in every namespace even with namespace set (tests of Pods outside it). */
  podsInAllNamespaces?: boolean;
  /** The namespace of the KubeVirt CR (the controller's own); default namespace, else every namespace. */
  configNamespace?: string;
  /** Workers per controller. */
  workers: number;
  log: Logger;
  registry: Registry;
  signal: AbortSignal;
  clock?: Clock;
  /** Informer resync period (default 5 min; 0 turns resync off). */
  resyncPeriodMs?: number;
}

export interface RunningControllers {
  /** The shared informers the controllers read (e.g. to observe without a watch of one's own). */
  informers: InformerRegistry;
  /** Every informer has delivered its first list. */
  hasSynced(): boolean;
  /** true once the caches synced and the workers started; false when the signal aborted first. */
  ready: Promise<boolean>;
  /** Resolves when workers and informers have stopped (after the signal aborted). */
  done: Promise<void>;
}

const DEFAULT_RESYNC_MS = 5 * 60 * 1000;

/**
 * Where the controllers watch: namespaced resources in namespace (every namespace when unset; Pods in every
 * namespace with podsInAllNamespaces), the KubeVirt CR in configNamespace (default namespace).
 */
export function watchNamespaces(
  opts: Pick<StartControllersOptions, 'namespace' | 'podsInAllNamespaces' | 'configNamespace'>,
): InformerRegistryOptions['namespaceOf'] {
  const configNamespace = opts.configNamespace ?? opts.namespace;
  return (gvr, scope) => {
    if (scope === 'config') return configNamespace;
    const pods = gvr.group === PODS.group && gvr.resource === PODS.resource;
    return pods && opts.podsInAllNamespaces === true ? undefined : opts.namespace;
  };
}

/** The controllers these settings run: all, but the evacuation controller when it is off. */
export function enabledControllers(settings: Pick<ControllerSettings, 'evacuation'>): ControllerDefinition[] {
  return CONTROLLERS.filter(
    (def) => settings.evacuation !== false || def.queue !== evacuationController.queue,
  );
}

export function startControllers(opts: StartControllersOptions): RunningControllers {
  const clock = opts.clock ?? realClock;
  const informers = new InformerRegistry({
    client: opts.client,
    clock,
    log: opts.log,
    resyncPeriodMs: opts.resyncPeriodMs ?? DEFAULT_RESYNC_MS,
    namespaceOf: watchNamespaces(opts),
  });
  const registered = enabledControllers(opts).map((def) => ({ def, build: def.register(informers) }));
  const factory = informers.build();

  const queueMetrics = workQueueMetricsFor(opts.registry);
  const queued = registered.map((r) => ({
    ...r,
    queue: new WorkQueue<string>({ name: r.def.queue, clock, metrics: queueMetrics }),
  }));
  const waitedFor = queued.filter((c) => c.def.eventsWait).map((c) => c.queue);
  /** Events wait while the VM and VMI queues (eventsWait) have work: the objects first, what happened to them after. */
  const busy = (): boolean => waitedFor.some((q) => q.active() > 0);
  const controllers = queued.map((c) => ({
    ...c,
    reconcile: c.build({
      client: opts.client,
      clock,
      log: opts.log,
      metricsRegistry: opts.registry,
      signal: opts.signal,
      settings: opts,
      enqueue: (key) => {
        c.queue.add(key);
      },
      recorder: (component) =>
        new ApiEventRecorder({ client: opts.client, component, clock, log: opts.log, busy }),
    }),
  }));
  factory.start(opts.signal);

  const metrics = controllerMetricsFor(opts.registry);
  const ready = factory.waitForCacheSync(opts.signal);
  const done = ready.then(async (synced) => {
    if (!synced) for (const c of controllers) c.queue.shutDown();
    else opts.log.info('caches synced, starting workers', { workers: opts.workers });
    await Promise.all(
      controllers.map((c) =>
        runController({
          name: c.def.queue,
          queue: c.queue,
          workers: opts.workers,
          reconcile: c.reconcile,
          log: opts.log,
          metrics,
          signal: opts.signal,
        }),
      ),
    );
    await factory.stopped();
  });
  return { informers, hasSynced: () => factory.hasSynced(), ready, done };
}
