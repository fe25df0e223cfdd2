/**
 * The node controller (kubevirt watch/node/node.go): keyed by node name, it checks the node's virt-handler
 * heartbeat; once it is stale (or the node is gone) the node is labelled kubevirt.io/schedulable=false and the
 * VMIs on it that have no live launcher Pod are moved to Failed with reason NodeUnresponsive. A node that
 * still exists is checked again every recheckMs.
 */
import { LABELS, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { NODES } from '../../kernel/kube/resources.ts';
import type { KubeClient, KubeObject } from '../../kernel/kube/types.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import { mergePatch } from '../../kernel/controller/merge-patch.ts';
import {
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
  isNodeUnresponsive,
  NODE_UNRESPONSIVE_REASON,
  stuckVmis,
} from './unresponsive.ts';

/** Index of VMIs by the kubevirt.io/nodeName label, and of Pods by spec.nodeName. */
export const BY_NODE = 'node';

export interface NodeControllerOptions {
  client: KubeClient;
  nodes: StoreReader<KubeObject>;
  /** VMIs, indexed by BY_NODE (label kubevirt.io/nodeName). */
  vmis: StoreReader<VirtualMachineInstance>;
  /** Launcher Pods, indexed by BY_NODE (spec.nodeName). */
  pods: StoreReader<Pod>;
  clock: Clock;
  recorder: EventRecorder;
  heartbeatTimeoutMs?: number;
  recheckMs?: number;
}

const DEFAULT_RECHECK_MS = 60_000;

export class NodeController {
  constructor(private readonly o: NodeControllerOptions) {}

  readonly reconcile = async (name: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const node = this.o.nodes.get(name);
    const timeout = this.o.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
    if (isNodeUnresponsive(node, this.o.clock.now(), timeout)) {
      if (node !== undefined && node.metadata.labels?.[LABELS.NODE_SCHEDULABLE] === 'true') {
        await this.markUnschedulable(node);
      }
      await this.failStuckVmis(name, ctx);
    }
    return node === undefined ? undefined : { requeueAfterMs: this.o.recheckMs ?? DEFAULT_RECHECK_MS };
  };

  private async markUnschedulable(node: KubeObject): Promise<void> {
    this.o.recorder.event(
      node,
      'Normal',
      NODE_UNRESPONSIVE_REASON,
      'virt-handler is not responsive, marking node as unresponsive',
    );
    await mergePatch(this.o.client, NODES, {
      obj: node,
      patch: { metadata: { labels: { [LABELS.NODE_SCHEDULABLE]: 'false' } } },
    });
  }

  private async failStuckVmis(name: string, ctx: ReconcileContext): Promise<void> {
    const vmis = this.o.vmis.byIndex(BY_NODE, name).filter((v) => !isFinal(v));
    if (vmis.length === 0) return;
    for (const vmi of stuckVmis(vmis, this.o.pods.byIndex(BY_NODE, name))) {
      this.o.recorder.event(
        vmi,
        'Normal',
        NODE_UNRESPONSIVE_REASON,
        `virt-handler on node ${name} is not responsive, marking VMI as failed`,
      );
      ctx.log.info('failing VMI on unresponsive node', { node: name, name: vmi.metadata.name });
      await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, {
        obj: vmi,
        patch: { status: { phase: 'Failed', reason: NODE_UNRESPONSIVE_REASON } },
      });
    }
  }
}
