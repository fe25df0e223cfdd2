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
import type { HealthTls } from '../kernel/metrics/server.ts';
import { requireRegistry, runRole, type RoleContext, type RoleWork } from '../kernel/runtime/role.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { startControllers, type RunningControllers } from './start.ts';
import type { LauncherPodConfig } from './vmi/launcher-pod.ts';

export interface ControllerRoleOptions {
  config: RestConfig;
  /** Namespace and name of the leader Lease; the KubeVirt CR is read from the same namespace. */
  leaseNamespace: string;
  leaseName?: string;
  leaderElect: boolean;
  workers: number;
  healthPort: number;
  healthHost?: string;
  /** TLS on the health port, /metrics authorized by the cluster; plain and open without. */
  metricsTls?: HealthTls | undefined;
  /** Watch one namespace only; all when unset. */
  watchNamespace?: string;
  launcher: LauncherPodConfig;
  /** Whether the evacuation controller runs (ControllerSettings.evacuation). */
  evacuation?: boolean;
  /** Speak kubevirt.io through the rewriter rules (the cluster stores the internal names). Default true. */
  rewrite?: boolean;
  /** Lease timing (client-go's 15 s / 10 s / 2 s by default); tests shorten it. */
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  log: Logger;
}

const LEASE_NAME = 'virt-controller';

function kubevirtClient(inner: KubeClient, rewrite: boolean): KubeClient {
  return rewrite ? rewritingClient(inner, buildRuleIndex(KUBEVIRT_REWRITE_RULES)) : inner;
}

function start(opts: ControllerRoleOptions, ctx: RoleContext): RoleWork {
  const client = new HttpKubeClient(opts.config);
  ctx.defer(() => client.destroy());
  const kv = kubevirtClient(client, opts.rewrite ?? true);
  let running: RunningControllers | undefined;
  ctx.readinessCheck('informers-synced', () => running?.hasSynced() ?? 'controllers not started');
  const run = async (signal: AbortSignal): Promise<void> => {
    running = startControllers({
      client: kv,
      workers: opts.workers,
      log: opts.log,
      registry: requireRegistry(ctx),
      signal,
      launcher: opts.launcher,
      ...(opts.evacuation !== undefined && { evacuation: opts.evacuation }),
      configNamespace: opts.leaseNamespace,
      ...(opts.watchNamespace !== undefined && { namespace: opts.watchNamespace }),
    });
    await running.done;
    running = undefined;
  };
  if (!opts.leaderElect) return { run };
  return {
    run,
    lease: {
      client,
      namespace: opts.leaseNamespace,
      name: opts.leaseName ?? LEASE_NAME,
      identity: `${hostname()}_${randomUUID().slice(0, 8)}`,
      ...(opts.lease !== undefined && {
        timing: {
          leaseDurationMs: opts.lease.durationMs,
          renewDeadlineMs: opts.lease.renewDeadlineMs,
          retryPeriodMs: opts.lease.retryPeriodMs,
        },
      }),
    },
  };
}

export function runControllerRole(opts: ControllerRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'controller',
      log: opts.log,
      health: {
        port: opts.healthPort,
        host: opts.healthHost,
        secure: opts.metricsTls && { tls: opts.metricsTls, config: opts.config },
      },
      start: (ctx) => Promise.resolve(start(opts, ctx)),
    },
    signal,
  );
}
