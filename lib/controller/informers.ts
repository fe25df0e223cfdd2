/**
 * The shared informers of the controller role: VMs, VMIs (indexed by node label and by claim), launcher and
 * attachment Pods (label kubevirt.io, indexed by owning VMI, owning launcher Pod and node),
 * PersistentVolumeClaims (namespaced like the rest), Nodes (cluster-wide) and the KubeVirt CR (in the
 * controller's own namespace). One watch per resource, shared by every controller that reads it.
 */
import {
  APP_LABEL,
  KUBEVIRTS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../kubevirt/index.ts';
import type { KubeVirt, VirtualMachine, VirtualMachineInstance } from '../kubevirt/index.ts';
import type { Clock } from '../kernel/clock.ts';
import { InformerFactory } from '../kernel/informer/factory.ts';
import { fieldIndex, labelIndex } from '../kernel/informer/index-funcs.ts';
import { SharedInformer } from '../kernel/informer/informer.ts';
import { NODES, PERSISTENT_VOLUME_CLAIMS, PODS } from '../kernel/kube/resources.ts';
import type { KubeClient, KubeObject } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../kubevirt/core/pvc.ts';
import { BY_NODE } from './node/controller.ts';
import { BY_CLAIM, vmiClaimIndex, vmiIndexers } from './vmi/indexers.ts';

/** The object type of each informer the factory holds, by its key. */
interface ControllerInformerKinds extends Record<string, KubeObject> {
  vms: VirtualMachine;
  vmis: VirtualMachineInstance;
  'launcher-pods': Pod;
  pvcs: PersistentVolumeClaim;
  nodes: KubeObject;
  kubevirts: KubeVirt;
}

export interface ControllerInformers {
  factory: InformerFactory<ControllerInformerKinds>;
  vms: SharedInformer<VirtualMachine>;
  vmis: SharedInformer<VirtualMachineInstance>;
  pods: SharedInformer<Pod>;
  pvcs: SharedInformer<PersistentVolumeClaim>;
  nodes: SharedInformer<KubeObject>;
  /** KubeVirt CRs (the cluster's settings), in configNamespace. */
  kubevirts: SharedInformer<KubeVirt>;
}

export interface InformerOptions {
  client: KubeClient;
  clock: Clock;
  log: Logger;
  resyncPeriodMs: number;
  /** Namespaced resources are watched in this namespace only, when set. */
  namespace?: string;
  /** Pods are watched in every namespace even when namespace is set (tests of Pods outside it). */
  podsInAllNamespaces?: boolean;
  /** Where the KubeVirt CR is (the controller's own namespace); default namespace, else every namespace. */
  configNamespace?: string;
}

export function controllerInformers(opts: InformerOptions): ControllerInformers {
  const factory = new InformerFactory<ControllerInformerKinds>();
  const cluster = {
    client: opts.client,
    clock: opts.clock,
    log: opts.log,
    resyncPeriodMs: opts.resyncPeriodMs,
  };
  const ns = { ...cluster, ...(opts.namespace !== undefined && { namespace: opts.namespace }) };
  const podScope = opts.podsInAllNamespaces === true ? cluster : ns;
  const configNamespace = opts.configNamespace ?? opts.namespace;
  return {
    factory,
    vms: factory.informerFor(
      'vms',
      () => new SharedInformer<VirtualMachine>({ ...ns, gvr: VIRTUAL_MACHINES }),
    ),
    vmis: factory.informerFor(
      'vmis',
      () =>
        new SharedInformer<VirtualMachineInstance>({
          ...ns,
          gvr: VIRTUAL_MACHINE_INSTANCES,
          indexers: { [BY_NODE]: labelIndex(LABELS.NODE_NAME), [BY_CLAIM]: vmiClaimIndex },
        }),
    ),
    pods: factory.informerFor(
      'launcher-pods',
      () =>
        new SharedInformer<Pod>({
          ...podScope,
          gvr: PODS,
          labelSelector: APP_LABEL,
          indexers: { ...vmiIndexers, [BY_NODE]: fieldIndex('spec.nodeName') },
        }),
    ),
    pvcs: factory.informerFor(
      'pvcs',
      () => new SharedInformer<PersistentVolumeClaim>({ ...ns, gvr: PERSISTENT_VOLUME_CLAIMS }),
    ),
    nodes: factory.informerFor('nodes', () => new SharedInformer<KubeObject>({ ...cluster, gvr: NODES })),
    kubevirts: factory.informerFor(
      'kubevirts',
      () =>
        new SharedInformer<KubeVirt>({
          ...cluster,
          ...(configNamespace !== undefined && { namespace: configNamespace }),
          gvr: KUBEVIRTS,
        }),
    ),
  };
}
