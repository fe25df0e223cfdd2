/**
 * What the evacuation controller watches and how events reach its queue of node names (kubevirt
 * drain/evacuation evacuation.go addNode, enqueueVMI, addMigration and enqueueMigration, tag v1.6.2): a Node
 * wakes itself; a VMI wakes the node it runs on (status.nodeName); a migration wakes the node its annotation
 * kubevirt.io/evacuationMigration names (and counts as a creation that node expected), else the node of its
 * VMI. Pods are read for the count of a VMI's active Pods; one of a VMI's Pods that is down or gone also wakes
 * the VMI's node, which KubeVirt leaves to the next resync. The migration and Pod caches are the migration
 * controller's, with its indexes.
 */
import { ANNOTATIONS, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { enqueueOwnKey } from '../../kernel/controller/keys.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import { isPodDown, type Pod } from '../../kubevirt/core/pod.ts';
import type { ControllerExpectations } from '../../kernel/controller/expectations.ts';
import { fieldIndex } from '../../kernel/informer/index-funcs.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import { NODES } from '../../kernel/kube/resources.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { MIGRATION_WATCHES } from '../migration/handlers.ts';
import { watch, type Caches } from '../registry.ts';
import type { Taint } from './decide.ts';

export type Node = KubeObject & { spec?: { taints?: Taint[] } };

/** VMIs by status.nodeName (KubeVirt's "node" index of the VMI informer). */
export const BY_STATUS_NODE = 'vmi-status-node';
const statusNodeIndex = fieldIndex('status.nodeName');

export const EVACUATION_WATCHES = {
  nodes: watch<Node>(NODES),
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
    indexers: { [BY_STATUS_NODE]: statusNodeIndex },
  }),
  migrations: MIGRATION_WATCHES.migrations,
  pods: MIGRATION_WATCHES.pods,
  kubevirts: MIGRATION_WATCHES.kubevirts,
};

type Enqueue = (node: string) => void;

function vmiHandler(enqueue: Enqueue): EventHandler<VirtualMachineInstance> {
  const wake = (vmi: VirtualMachineInstance): void => {
    const node = vmi.status?.nodeName ?? '';
    if (node !== '') enqueue(node);
  };
  return {
    onAdd: wake,
    onUpdate: (_old, vmi): void => {
      wake(vmi);
    },
    onDelete: wake,
  };
}

function migrationHandler(
  inf: Pick<Caches<typeof EVACUATION_WATCHES>, 'vmis'>,
  expectations: ControllerExpectations,
  enqueue: Enqueue,
): EventHandler<VirtualMachineInstanceMigration> {
  const wakeVmiNode = (m: VirtualMachineInstanceMigration): void => {
    const vmi = inf.vmis.store.get(`${m.metadata.namespace ?? ''}/${m.spec.vmiName ?? ''}`);
    const node = vmi?.status?.nodeName ?? '';
    if (node !== '') enqueue(node);
  };
  return {
    onAdd: (m): void => {
      const node = m.metadata.annotations?.[ANNOTATIONS.EVACUATION_MIGRATION];
      if (node === undefined) {
        wakeVmiNode(m);
        return;
      }
      expectations.creationObserved(node);
      if (node !== '') enqueue(node);
    },
    onUpdate: (_old, m): void => {
      wakeVmiNode(m);
    },
    onDelete: wakeVmiNode,
  };
}

/** A VMI's Pod that went down or away: the VMI may have one active Pod again. */
function podHandler(
  inf: Pick<Caches<typeof EVACUATION_WATCHES>, 'vmis'>,
  enqueue: Enqueue,
): EventHandler<Pod> {
  const wakeVmiNode = (pod: Pod): void => {
    const ref = controllerRefOf(pod);
    if (ref?.kind !== 'VirtualMachineInstance') return;
    const node = inf.vmis.store.get(`${pod.metadata.namespace ?? ''}/${ref.name}`)?.status?.nodeName ?? '';
    if (node !== '') enqueue(node);
  };
  return {
    onUpdate: (old, pod): void => {
      if (!isPodDown(old) && isPodDown(pod)) wakeVmiNode(pod);
    },
    onDelete: wakeVmiNode,
  };
}

export function watchForEvacuations(
  inf: Caches<typeof EVACUATION_WATCHES>,
  expectations: ControllerExpectations,
  enqueue: Enqueue,
): void {
  inf.nodes.addEventHandler(enqueueOwnKey(enqueue));
  inf.vmis.addEventHandler(vmiHandler(enqueue));
  inf.migrations.addEventHandler(migrationHandler(inf, expectations, enqueue));
  inf.pods.addEventHandler(podHandler(inf, enqueue));
}
