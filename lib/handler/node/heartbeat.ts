/**
 * The handler's node heartbeat (kubevirt pkg/virt-handler/heartbeat): at start and every intervalMs (with
 * jitter) the node gets `kubevirt.io/schedulable` ("true" once the device plugins are registered, "false"
 * before), the cpumanager labels (false: the CPU manager is not detected here) and the
 * `kubevirt.io/heartbeat` annotation with the time; the node-labeller's labels ride along. When the handler
 * stops, the node is marked unschedulable, so no launcher Pod is placed where nobody would run it.
 */
import { ANNOTATIONS, LABELS } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import { NODES } from '../../kernel/kube/resources.ts';
import type { KubeClient, KubeObject } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { labelPatch, readNodeLabels } from './labels.ts';

export interface HeartbeatOptions {
  /** Speaks kubevirt.io (node labels are renamed like any other kubevirt.io label). */
  readonly client: KubeClient;
  readonly node: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** The node-labeller's output directory. */
  readonly labellerDir: string;
  /** Whether the device plugins are registered with the kubelet. */
  readonly devicesReady: () => boolean;
  /** Default 60 s (KubeVirt's), jittered by up to 1.2×. */
  readonly intervalMs?: number;
  readonly random?: () => number;
}

async function beat(o: HeartbeatOptions, schedulable: boolean): Promise<void> {
  const node = await o.client.get<KubeObject>(NODES, o.node);
  const wanted = (await readNodeLabels(o.labellerDir)) ?? {};
  const labels = {
    ...labelPatch(node.metadata.labels, wanted),
    [LABELS.NODE_SCHEDULABLE]: String(schedulable),
    [LABELS.CPU_MANAGER]: 'false',
    [LABELS.DEPRECATED_CPU_MANAGER]: 'false',
  };
  const annotations = { [ANNOTATIONS.HANDLER_HEARTBEAT]: rfc3339(o.clock.now()) };
  await o.client.patch(NODES, o.node, { metadata: { labels, annotations } }, { type: 'merge' });
}

/** Beats until signal aborts, then marks the node unschedulable once. */
export async function runHeartbeat(o: HeartbeatOptions, signal: AbortSignal): Promise<void> {
  const interval = o.intervalMs ?? 60_000;
  const random = o.random ?? Math.random;
  while (!signal.aborted) {
    await beat(o, o.devicesReady()).catch((err: unknown) => {
      o.log.warning('heartbeat failed', { node: o.node, reason: errorMessage(err) });
    });
    // Until the device plugins are up, look again every second (KubeVirt waits up to 10 s for them).
    const wait = o.devicesReady() ? interval * (1 + random() * 0.2) : 1000;
    await o.clock.sleep(wait, signal).catch(() => undefined);
  }
  await beat(o, false).catch((err: unknown) => {
    o.log.warning('could not mark the node unschedulable', { node: o.node, reason: errorMessage(err) });
  });
}
