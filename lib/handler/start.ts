/**
 * The handler's VMI side on one node, wired: an informer over the VMIs labelled `kubevirt.io/nodeName=<node>`
 * (KubeVirt's selector: CRDs have no field selectors) and one over the launcher Pods of the node
 * (`spec.nodeName=<node>`, `kubevirt.io=virt-launcher`; KubeVirt's handler watches no Pods) by which an
 * active Pod is trusted as a VMI's launcher Pod (launchers/pods.ts), a Notify server in each launcher Pod,
 * the launcher clients, the hotplug mounter, the VMI controller on its own work queue (`virt-handler-vm`),
 * the migration controller on two (`virt-handler-source` over the node's VMIs, `virt-handler-target` over an
 * informer of the VMIs labelled `kubevirt.io/migrationTargetNodeName=<node>`) with the node's migration proxies,
 * and the per-VMI `kubevirt_vmi_*` metrics read from the launchers on each scrape. The workers start once
 * every cache synced. Everything stops when the signal aborts: queues drained, informers stopped, proxies,
 * Notify and clients closed. Tests run this in-process; the role adds health, device plugins, the REST server
 * and the heartbeat around it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import {
  KUBEVIRTS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCES,
  type KubeVirt,
  type VirtualMachineInstance,
} from '../kubevirt/index.ts';
import { configuringKubeVirt } from '../kubevirt/validation/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { realClock, type Clock } from '../kernel/clock.ts';
import { ApiEventRecorder, type EventRecorder } from '../kernel/controller/events.ts';
import { enqueueOwnKey } from '../kernel/controller/keys.ts';
import { controllerMetricsFor } from '../kernel/controller/metrics.ts';
import { runController, type Reconciler } from '../kernel/controller/runner.ts';
import { SharedInformer } from '../kernel/informer/informer.ts';
import { PODS } from '../kernel/kube/index.ts';
import type { KubeClient } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import { workQueueMetricsFor } from '../kernel/workqueue/metrics.ts';
import { WorkQueue } from '../kernel/workqueue/queue.ts';
import { attachmentPodName } from './hotplug/lookup.ts';
import { HotplugMounter } from './hotplug/mounter.ts';
import {
  HandlerMigrationController,
  type HandlerMigrationControllerOptions,
} from './migration/controller.ts';
import { MigrationProxyManager } from './migration-proxy/manager.ts';
import { watchMigrationTls, type MigrationTlsFiles } from './migration-proxy/tls-watch.ts';
import type { PortRange } from './migration-proxy/ports.ts';
import type { MigrationTls } from './migration-proxy/tls.ts';
import { RouterAdvertisers } from './network/router-adverts.ts';
import { PodNetworkSetup } from './network/setup.ts';
import { LauncherClients } from './launchers/clients.ts';
import { launcherPodSelectors, nodePods, POD_BY_UID, podUidIndex } from './launchers/pods.ts';
import { registerVmiStats } from './metrics/vmi-stats.ts';
import { domainEventEnqueuer, NotifiedDomains } from './notify/domains.ts';
import { startNotifyServer } from './notify/server.ts';
import { HandlerVmiController } from './vmi/controller.ts';
import { handlerClusterConfig, type HandlerClusterConfig } from './vmi/options.ts';

const HANDLER_VM_QUEUE = 'virt-handler-vm';
const HANDLER_SOURCE_QUEUE = 'virt-handler-source';
const HANDLER_TARGET_QUEUE = 'virt-handler-target';

export interface StartHandlerOptions {
  /** Speaks kubevirt.io (a rewritingClient where the cluster stores the internal names). */
  readonly client: KubeClient;
  readonly node: string;
  /** The kubelet's pods dir as this process sees it. */
  readonly kubeletPodsDir: string;
  readonly workers: number;
  readonly log: Logger;
  readonly registry: Registry;
  readonly signal: AbortSignal;
  readonly clock?: Clock;
  /** The namespace of the KubeVirt resource whose settings the handler follows; without it, KubeVirt's defaults. */
  readonly configNamespace?: string;
  readonly resyncMs?: number;
  readonly unresponsiveAfterMs?: number;
  /** Where this node's migration proxies listen, and their TLS (none: a migration through this node fails). */
  readonly migration?: {
    readonly address: string;
    readonly tls?: MigrationTls;
    /** Where the TLS material was read from: watched for rotation, each new set taken up by the proxies. */
    readonly tlsFiles?: MigrationTlsFiles;
    readonly portRange?: PortRange;
  };
}

export interface RunningHandler {
  readonly vmis: SharedInformer<VirtualMachineInstance>;
  /** The launcher Pods on this node. */
  readonly pods: SharedInformer<Pod>;
  readonly launchers: LauncherClients;
  readonly controller: HandlerVmiController;
  /** Records Events on this node's VMIs (as virt-handler). */
  readonly recorder: EventRecorder;
  hasSynced(): boolean;
  /** Resolves when everything has stopped (after the signal aborted). */
  readonly done: Promise<void>;
}

/**
 * The node's VMIs (by KubeVirt's label), its launcher Pods (by node and label, indexed by uid), and the KubeVirt
 * resources of the install namespace (virt-handler's cluster config informer).
 */
function nodeInformers(
  o: StartHandlerOptions,
  clock: Clock,
  log: Logger,
): {
  vmis: SharedInformer<VirtualMachineInstance>;
  targets: SharedInformer<VirtualMachineInstance>;
  pods: SharedInformer<Pod>;
  kubevirts: SharedInformer<KubeVirt> | undefined;
} {
  const common = { client: o.client, clock, log };
  return {
    kubevirts:
      o.configNamespace === undefined
        ? undefined
        : new SharedInformer<KubeVirt>({ ...common, gvr: KUBEVIRTS, namespace: o.configNamespace }),
    vmis: new SharedInformer<VirtualMachineInstance>({
      ...common,
      gvr: VIRTUAL_MACHINE_INSTANCES,
      labelSelector: `${LABELS.NODE_NAME}=${o.node}`,
      resyncPeriodMs: 5 * 60_000,
    }),
    // The VMIs migrating here: not this node's until the migration completed (migration-target.go's informer).
    targets: new SharedInformer<VirtualMachineInstance>({
      ...common,
      gvr: VIRTUAL_MACHINE_INSTANCES,
      labelSelector: `${LABELS.MIGRATION_TARGET_NODE_NAME}=${o.node}`,
    }),
    pods: new SharedInformer<Pod>({
      ...common,
      gvr: PODS,
      ...launcherPodSelectors(o.node),
      indexers: { [POD_BY_UID]: podUidIndex },
    }),
  };
}

interface QueuedReconciler {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly reconcile: Reconciler;
}

/** Once the caches synced, each queue's workers until the signal aborts (none when a cache never synced). */
async function runQueues(
  o: StartHandlerOptions,
  informers: readonly { waitForSync(signal: AbortSignal): Promise<boolean> }[],
  queues: readonly QueuedReconciler[],
  log: Logger,
): Promise<void> {
  const all = await Promise.all(informers.map((i) => i.waitForSync(o.signal)));
  if (all.every(Boolean)) log.info('caches synced, starting workers', { workers: o.workers });
  else for (const q of queues) q.queue.shutDown();
  const metrics = controllerMetricsFor(o.registry);
  await Promise.all(
    queues.map((q) => runController({ ...q, workers: o.workers, log, metrics, signal: o.signal })),
  );
}

/** A migration target's hotplugged volumes, from the attachment Pod the migration names by uid. */
function targetHotplug(
  o: StartHandlerOptions,
  mounter: HotplugMounter,
): NonNullable<HandlerMigrationControllerOptions['hotplug']> {
  return {
    mountFromPod: async (vmi, podUid, uid): Promise<void> => {
      const at = { namespace: vmi.metadata.namespace ?? '', node: o.node, uid };
      await mounter.mountFromPod(vmi, podUid, { name: await attachmentPodName(o.client, at), uid });
    },
    release: (vmi, podUid) => mounter.release(vmi, podUid),
  };
}

/** The node's migration proxies, when it has TLS material for them, with their files watched for rotation. */
function migrationProxies(
  o: StartHandlerOptions,
  d: { log: Logger; clock: Clock },
): { proxies: MigrationProxyManager | undefined; close: () => Promise<void> } {
  const m = o.migration;
  if (m?.tls === undefined) return { proxies: undefined, close: async (): Promise<void> => {} };
  const proxies = new MigrationProxyManager({
    kubeletPodsDir: o.kubeletPodsDir,
    host: m.address,
    tls: m.tls,
    log: d.log,
    clock: d.clock,
    ...(m.portRange !== undefined && { portRange: m.portRange }),
  });
  const watch =
    m.tlsFiles === undefined
      ? undefined
      : watchMigrationTls({
          files: m.tlsFiles,
          tls: m.tls,
          apply: (tls) => {
            proxies.reloadTls(tls);
          },
          ...d,
        });
  return {
    proxies,
    close: async (): Promise<void> => {
      await watch?.close();
      await proxies.close();
    },
  };
}

/**
 * The migration side: the node's proxies (with TLS material, watched for rotation when its files are known) and
 * its controller's two queues.
 */
function startMigrations(
  o: StartHandlerOptions,
  d: Pick<HandlerMigrationControllerOptions, 'launchers' | 'network' | 'hotplug' | 'clock' | 'recorder'> & {
    vmis: SharedInformer<VirtualMachineInstance>;
    targets: SharedInformer<VirtualMachineInstance>;
    clusterConfig: () => HandlerClusterConfig;
    log: Logger;
  },
): { close: () => Promise<void>; queues: QueuedReconciler[] } {
  const { proxies, close } = migrationProxies(o, d);
  const queue = (name: string): WorkQueue =>
    new WorkQueue<string>({ name, clock: d.clock, metrics: workQueueMetricsFor(o.registry) });
  const source = queue(HANDLER_SOURCE_QUEUE);
  const target = queue(HANDLER_TARGET_QUEUE);
  const controller = new HandlerMigrationController({
    client: o.client,
    node: o.node,
    vmis: d.vmis.store,
    targets: d.targets.store,
    launchers: d.launchers,
    proxies,
    migrationAddress: o.migration?.address ?? '',
    config: d.clusterConfig,
    ...(d.network !== undefined && { network: d.network }),
    ...(d.hotplug !== undefined && { hotplug: d.hotplug }),
    clock: d.clock,
    recorder: d.recorder,
  });
  d.vmis.addEventHandler(enqueueOwnKey(source.add.bind(source)));
  d.targets.addEventHandler(enqueueOwnKey(target.add.bind(target)));
  return {
    close,
    queues: [
      { name: HANDLER_SOURCE_QUEUE, queue: source, reconcile: controller.reconcileSource },
      { name: HANDLER_TARGET_QUEUE, queue: target, reconcile: controller.reconcileTarget },
    ],
  };
}

export async function startHandler(o: StartHandlerOptions): Promise<RunningHandler> {
  const clock = o.clock ?? realClock;
  const log = o.log.with({ node: o.node });
  const { vmis, targets, pods, kubevirts } = nodeInformers(o, clock, log);
  const informers = [vmis, targets, pods, ...(kubevirts === undefined ? [] : [kubevirts])];
  const launcherPods = nodePods(pods.store);
  const queue = new WorkQueue<string>({
    name: HANDLER_VM_QUEUE,
    clock,
    metrics: workQueueMetricsFor(o.registry),
  });
  const launchers = new LauncherClients({
    node: o.node,
    kubeletPodsDir: o.kubeletPodsDir,
    pods: launcherPods,
    clock,
    log,
    ...(o.unresponsiveAfterMs !== undefined && { unresponsiveAfterMs: o.unresponsiveAfterMs }),
  });
  const recorder = new ApiEventRecorder({ client: o.client, component: 'virt-handler', clock, log });
  const notified = new NotifiedDomains();
  // Each launcher Pod's endpoint passes on only what concerns its own VMI, as cached (notify/accept.ts).
  const notify = startNotifyServer({
    node: o.node,
    vmis: vmis.store,
    pods: launcherPods,
    log,
    events: {
      // An event that repeats the last domain its launcher reported wakes nothing: a failing sync's retries
      // keep their backoff.
      domainEvent: domainEventEnqueuer(notified, queue.add.bind(queue)),
      k8sEvent: (vmi, ev) => {
        recorder.event(vmi, ev.type === 'Warning' ? 'Warning' : 'Normal', ev.reason ?? '', ev.message ?? '');
      },
    },
  });
  const clusterConfig = (): HandlerClusterConfig =>
    handlerClusterConfig(configuringKubeVirt(kubevirts?.store.list() ?? []));
  // radvd's files go to a directory of this process's own, made here (0700, a name nobody could take first)
  // and removed with it: a name known in advance under a shared /tmp could be a symlink laid by another user.
  const advertsDir = await mkdtemp(join(tmpdir(), 'kubevirt-ts-handler-radvd-'));
  const network = new PodNetworkSetup({
    log,
    plugins: (): HandlerClusterConfig['networkBindings'] => clusterConfig().networkBindings,
    adverts: new RouterAdvertisers({ log, dir: advertsDir }),
  });
  const hotplug = await HotplugMounter.start({
    client: o.client,
    node: o.node,
    kubeletPodsDir: o.kubeletPodsDir,
    log,
  });
  const controller = new HandlerVmiController({
    client: o.client,
    vmis: vmis.store,
    node: o.node,
    launchers,
    notify,
    notified,
    clock,
    recorder,
    config: clusterConfig,
    hotplug,
    network,
    ...(o.resyncMs !== undefined && { resyncMs: o.resyncMs }),
  });
  const migrations = startMigrations(o, {
    vmis,
    targets,
    launchers,
    network,
    hotplug: targetHotplug(o, hotplug),
    clusterConfig,
    clock,
    recorder,
    log,
  });
  registerVmiStats(
    o.registry,
    o.node,
    {
      running: () => vmis.store.list().filter((v) => v.status?.phase === 'Running'),
      client: (vmi) => launchers.client(vmi),
    },
    log,
  );
  const reconcile = controller.reconcile;
  vmis.addEventHandler(enqueueOwnKey(queue.add.bind(queue)));
  const informersDone = Promise.all(informers.map((i) => i.run(o.signal)));
  const synced = (): boolean => informers.every((i) => i.hasSynced());
  const queues = [{ name: HANDLER_VM_QUEUE, queue, reconcile }, ...migrations.queues];
  const done = (async (): Promise<void> => {
    await runQueues(o, informers, queues, log);
    await informersDone;
    await migrations.close();
    await notify.close();
    await network.close();
    await rm(advertsDir, { recursive: true, force: true });
    launchers.closeAll();
  })();
  return { vmis, pods, launchers, controller, recorder, hasSynced: synced, done };
}
