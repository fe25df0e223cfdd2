/**
 * The `controller` role: a kube client speaking kubevirt.io through the rename rules, and, while this replica
 * holds the Lease, the VM, VMI and node controllers (kubevirt watch/application.go: informers and workers
 * start on leading and stop when leadership ends). Readiness is "leader" and "informers-synced", so only the
 * active replica is Ready, as KubeVirt's /leader probe.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { HttpKubeClient, type KubeClient, type RestConfig } from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import { requireRegistry, runRole, type RoleContext, type RoleWork } from '../kernel/runtime/role.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { startControllers, type RunningControllers } from './start.ts';
import type { LauncherPodConfig } from './vmi/launcher-pod.ts';

export interface ControllerRoleOptions {
  config: RestConfig;
  /** Namespace and name of the leader Lease. */
  leaseNamespace: string;
  leaseName?: string;
  leaderElect: boolean;
  workers: number;
  healthPort: number;
  healthHost?: string;
  /** Watch one namespace only; all when unset. */
  watchNamespace?: string;
  launcher: LauncherPodConfig;
  /** Speak kubevirt.io through the rewriter rules (the cluster stores the internal names). Default true. */
  rewrite?: boolean;
  /** Lease timing (client-go's 15 s / 10 s / 2 s by default); tests shorten it. */
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  log: Logger;
}

export const LEASE_NAME = 'virt-controller';

function kubevirtClient(inner: KubeClient, rewrite: boolean): KubeClient {
  return rewrite ? rewritingClient(inner, buildRuleIndex(KUBEVIRT_REWRITE_RULES)) : inner;
}

function start(o: ControllerRoleOptions, ctx: RoleContext): RoleWork {
  const client = new HttpKubeClient(o.config);
  ctx.defer(() => client.destroy());
  const kv = kubevirtClient(client, o.rewrite ?? true);
  let running: RunningControllers | undefined;
  ctx.readinessCheck('informers-synced', () => running?.hasSynced() ?? 'controllers not started');
  const run = async (signal: AbortSignal): Promise<void> => {
    running = startControllers({
      client: kv,
      workers: o.workers,
      log: o.log,
      registry: requireRegistry(ctx),
      signal,
      launcher: o.launcher,
      ...(o.watchNamespace !== undefined && { namespace: o.watchNamespace }),
    });
    await running.done;
    running = undefined;
  };
  if (!o.leaderElect) return { run };
  return {
    run,
    lease: {
      client,
      namespace: o.leaseNamespace,
      name: o.leaseName ?? LEASE_NAME,
      identity: `${hostname()}_${randomUUID().slice(0, 8)}`,
      ...(o.lease !== undefined && {
        timing: {
          leaseDurationMs: o.lease.durationMs,
          renewDeadlineMs: o.lease.renewDeadlineMs,
          retryPeriodMs: o.lease.retryPeriodMs,
        },
      }),
    },
  };
}

export function runControllerRole(o: ControllerRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'controller',
      log: o.log,
      health: { port: o.healthPort, ...(o.healthHost !== undefined && { host: o.healthHost }) },
      start: (ctx) => Promise.resolve(start(o, ctx)),
    },
    signal,
  );
}
