/**
 * The node controller's watches (kubevirt watch/node/node.go): its Nodes, and the node names the VMIs
 * (label kubevirt.io/nodeName) and launcher Pods (spec.nodeName) carry, so a VMI or Pod that lands on a node
 * gets that node checked.
 */
import { APP_LABEL, LABELS, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { enqueueOwnKey } from '../../kernel/controller/keys.ts';
import { fieldIndex, labelIndex } from '../../kernel/informer/index-funcs.ts';
import { NODES, PODS } from '../../kernel/kube/resources.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { watch, type Caches } from '../registry.ts';
import { BY_NODE } from './controller.ts';

/** What the node controller reads: Nodes (cluster-wide), VMIs and launcher Pods by node. */
export const NODE_WATCHES = {
  nodes: watch<KubeObject>(NODES),
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
    indexers: { [BY_NODE]: labelIndex(LABELS.NODE_NAME) },
  }),
  pods: watch<Pod>(PODS, { labelSelector: APP_LABEL, indexers: { [BY_NODE]: fieldIndex('spec.nodeName') } }),
};

export function watchForNodes(inf: Caches<typeof NODE_WATCHES>, enqueue: (node: string) => void): void {
  const vmiToNode = (v: { metadata: { labels?: Record<string, string> } }): void => {
    const n = v.metadata.labels?.[LABELS.NODE_NAME];
    if (n !== undefined && n !== '') enqueue(n);
  };
  inf.nodes.addEventHandler(enqueueOwnKey(enqueue));
  inf.vmis.addEventHandler({
    onAdd: vmiToNode,
    onUpdate: (_o, v): void => {
      vmiToNode(v);
    },
  });
  inf.pods.addEventHandler({
    onUpdate: (_old, p): void => {
      const node = p.spec.nodeName ?? '';
      if (node !== '') enqueue(node);
    },
  });
}
