/**
 * The node controller's watches (kubevirt watch/node/node.go): its Nodes, and the node names the VMIs
 * (label kubevirt.io/nodeName) and launcher Pods (spec.nodeName) carry, so a VMI or Pod that lands on a node
 * gets that node checked.
 */
import { LABELS } from '../../kubevirt/index.ts';
import { enqueueOwnKey } from '../../kernel/controller/keys.ts';
import type { ControllerInformers } from '../informers.ts';

export function watchForNodes(
  inf: Pick<ControllerInformers, 'nodes' | 'vmis' | 'pods'>,
  enqueue: (node: string) => void,
): void {
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
