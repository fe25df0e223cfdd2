/**
 * The `handler` role (kubevirt cmd/virt-handler), one per node: a kube client speaking kubevirt.io through the
 * rename rules, the health and metrics server (`/healthz`, `/readyz` = the VMI cache synced, `/metrics`), the
 * VMIs of this node synced with their launchers (start.ts), and the node heartbeat with the node-labeller's
 * labels. On SIGTERM the queue drains, the node is marked unschedulable, and the guests are left running: they
 * belong to their launcher Pods, not to the handler.
 */
import { realClock } from '../kernel/clock.ts';
import { HttpKubeClient, type RestConfig } from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import {
  requireRegistry,
  runRole,
  untilAborted,
  type RoleContext,
  type RoleWork,
} from '../kernel/runtime/role.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { runHeartbeat } from './node/heartbeat.ts';
import { startHandler } from './start.ts';

export interface HandlerRoleOptions {
  readonly config: RestConfig;
  readonly node: string;
  /** Prefix of every host path ('/' on a node). */
  readonly root: string;
  /** The kubelet's pods dir (default `<root>/var/lib/kubelet/pods`). */
  readonly kubeletPodsDir: string;
  /** The node-labeller's output (default `<root>/var/lib/kubevirt-node-labeller`). */
  readonly labellerDir: string;
  readonly workers: number;
  readonly healthPort: number;
  readonly healthHost?: string;
  readonly log: Logger;
}

async function start(o: HandlerRoleOptions, ctx: RoleContext): Promise<RoleWork> {
  const direct = new HttpKubeClient(o.config);
  ctx.defer(() => direct.destroy());
  const client = rewritingClient(direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  const stop = new AbortController();
  const running = await startHandler({
    client,
    node: o.node,
    root: o.root,
    kubeletPodsDir: o.kubeletPodsDir,
    workers: o.workers,
    log: o.log,
    registry: requireRegistry(ctx),
    signal: stop.signal,
  });
  ctx.readinessCheck('vmis-synced', () => running.hasSynced() || 'VMI cache not synced');
  return {
    run: async (signal): Promise<void> => {
      const heartbeat = runHeartbeat(
        {
          client,
          node: o.node,
          clock: realClock,
          log: o.log,
          labellerDir: o.labellerDir,
          devicesReady: () => true,
        },
        signal,
      );
      await untilAborted(signal);
      stop.abort();
      await Promise.all([running.done, heartbeat]);
    },
  };
}

export function runHandlerRole(o: HandlerRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'handler',
      log: o.log,
      health: { port: o.healthPort, ...(o.healthHost !== undefined && { host: o.healthHost }) },
      start: (ctx) => start(o, ctx),
    },
    signal,
  );
}
