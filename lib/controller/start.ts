/**
 * startControllers: the VM, VMI and node controllers of the `controller` role, on shared informers, each with
 * its own work queue and workers. Informers start at once; workers start when every cache has synced
 * (kubevirt watch/application.go onStartedLeading). Everything stops when the signal aborts: queues drain,
 * in-flight reconciles finish, informers stop.
 */
import type { Registry } from 'prom-client';
import { realClock, type Clock } from '../kernel/clock.ts';
import { controllerMetricsFor } from '../kernel/controller/metrics.ts';
import { runController, type Reconciler } from '../kernel/controller/runner.ts';
import type { KubeClient } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import { workQueueMetricsFor } from '../kernel/workqueue/metrics.ts';
import { WorkQueue } from '../kernel/workqueue/queue.ts';
import { DelayedEnqueue } from '../kernel/controller/delayed-enqueue.ts';
import { ApiEventRecorder } from '../kernel/controller/events.ts';
import { controllerInformers, type ControllerInformers } from './informers.ts';
import { NodeController } from './node/controller.ts';
import { watchForNodes } from './node/handlers.ts';
import { VmController } from './vm/controller.ts';
import { watchForVms } from './vm/handlers.ts';
import { VmiController } from './vmi/controller.ts';
import { watchForVmis } from './vmi/handlers.ts';
import type { LauncherPodConfig } from './vmi/launcher-pod.ts';
import { vmiMetricsFor } from './vmi/metrics.ts';

export interface StartControllersOptions {
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
  launcher: LauncherPodConfig;
  clock?: Clock;
  /** Informer resync period (default 5 min; 0 turns resync off). */
  resyncPeriodMs?: number;
  random?: () => number;
  /** How long VMI events wait before they wake the VM controller (default 500 ms; 0: at once). */
  vmiEventDelayMs?: number;
  /** How old a virt-handler heartbeat may get before its node counts as unresponsive (default 5 min). */
  heartbeatTimeoutMs?: number;
}

export interface RunningControllers {
  vm: VmController;
  vmi: VmiController;
  node: NodeController;
  /** The shared informers the controllers read (e.g. to observe without a watch of one's own). */
  informers: ControllerInformers;
  /** Every informer has delivered its first list. */
  hasSynced(): boolean;
  /** true once the caches synced and the workers started; false when the signal aborted first. */
  ready: Promise<boolean>;
  /** Resolves when workers and informers have stopped (after the signal aborted). */
  done: Promise<void>;
}

const VM_QUEUE = 'virt-controller-vm';
const VMI_QUEUE = 'virt-controller-vmi';
const NODE_QUEUE = 'virt-controller-node';
const DEFAULT_RESYNC_MS = 5 * 60 * 1000;
const DEFAULT_VMI_EVENT_DELAY_MS = 500;

export function startControllers(opts: StartControllersOptions): RunningControllers {
  const clock = opts.clock ?? realClock;
  const inf = controllerInformers({
    client: opts.client,
    clock,
    log: opts.log,
    resyncPeriodMs: opts.resyncPeriodMs ?? DEFAULT_RESYNC_MS,
    ...(opts.namespace !== undefined && { namespace: opts.namespace }),
    ...(opts.podsInAllNamespaces !== undefined && { podsInAllNamespaces: opts.podsInAllNamespaces }),
    ...(opts.configNamespace !== undefined && { configNamespace: opts.configNamespace }),
  });
  const queueMetrics = workQueueMetricsFor(opts.registry);
  const queue = (name: string): WorkQueue => new WorkQueue<string>({ name, clock, metrics: queueMetrics });
  const queues = { vm: queue(VM_QUEUE), vmi: queue(VMI_QUEUE), node: queue(NODE_QUEUE) };
  /** Events wait while VMs or VMIs are queued: the objects first, what happened to them right after. */
  const busy = (): boolean => queues.vm.active() + queues.vmi.active() > 0;
  const recorder = (component: string): ApiEventRecorder =>
    new ApiEventRecorder({ client: opts.client, component, clock, log: opts.log, busy });
  const vm = new VmController({
    client: opts.client,
    vms: inf.vms.store,
    vmis: inf.vmis.store,
    clock,
    recorder: recorder('virtualmachine-controller'),
    ...(opts.random !== undefined && { random: opts.random }),
  });
  const vmi = new VmiController({
    client: opts.client,
    vmis: inf.vmis.store,
    pods: inf.pods.store,
    vms: inf.vms.store,
    pvcs: inf.pvcs.store,
    kubevirts: inf.kubevirts.store,
    clock,
    recorder: recorder('virtualmachineinstance-controller'),
    launcher: opts.launcher,
    metrics: vmiMetricsFor(opts.registry),
  });
  const node = new NodeController({
    client: opts.client,
    nodes: inf.nodes.store,
    vmis: inf.vmis.store,
    pods: inf.pods.store,
    clock,
    recorder: recorder('node-controller'),
    ...(opts.heartbeatTimeoutMs !== undefined && { heartbeatTimeoutMs: opts.heartbeatTimeoutMs }),
  });
  const add =
    (q: WorkQueue) =>
    (key: string): void => {
      q.add(key);
    };
  const vmiToVm = new DelayedEnqueue(
    clock,
    opts.vmiEventDelayMs ?? DEFAULT_VMI_EVENT_DELAY_MS,
    add(queues.vm),
  );
  opts.signal.addEventListener('abort', () => {
    vmiToVm.cancelAll();
  });
  watchForVms(inf, vm, add(queues.vm), vmiToVm.enqueue);
  watchForVmis(inf, vmi, add(queues.vmi));
  watchForNodes(inf, add(queues.node));
  inf.factory.start(opts.signal);

  const metrics = controllerMetricsFor(opts.registry);
  const run = (name: string, q: WorkQueue, reconcile: Reconciler): Promise<void> =>
    runController({
      name,
      queue: q,
      workers: opts.workers,
      reconcile,
      log: opts.log,
      metrics,
      signal: opts.signal,
    });
  const ready = inf.factory.waitForCacheSync(opts.signal);
  const done = ready.then(async (synced) => {
    if (!synced) for (const q of Object.values(queues)) q.shutDown();
    else opts.log.info('caches synced, starting workers', { workers: opts.workers });
    await Promise.all([
      run(VM_QUEUE, queues.vm, vm.reconcile),
      run(VMI_QUEUE, queues.vmi, vmi.reconcile),
      run(NODE_QUEUE, queues.node, node.reconcile),
    ]);
    await inf.factory.stopped();
  });
  return { vm, vmi, node, informers: inf, hasSynced: () => inf.factory.hasSynced(), ready, done };
}
