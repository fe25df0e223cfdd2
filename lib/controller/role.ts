/**
 * The `controller` role: a kube client speaking kubevirt.io through the rewriter rules, the health and metrics
 * server, and, while this replica holds the Lease, the VM and VMI controllers (kubevirt
 * watch/application.go: informers and workers start on leading and stop when leadership ends). Readiness is
 * "leader" and "informers-synced", so only the active replica is Ready, as KubeVirt's /leader probe.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { LeaderElector } from '../kernel/leader/election.ts';
import { HttpKubeClient, type KubeClient, type RestConfig } from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import { newRegistry } from '../kernel/metrics/registry.ts';
import { startHealthServer } from '../kernel/metrics/server.ts';
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

export async function runControllerRole(o: ControllerRoleOptions, signal: AbortSignal): Promise<void> {
  const client = new HttpKubeClient(o.config);
  const kv = kubevirtClient(client, o.rewrite ?? true);
  const registry = newRegistry();
  let running: RunningControllers | undefined;
  let elector: LeaderElector | undefined;
  const health = await startHealthServer({
    port: o.healthPort,
    ...(o.healthHost !== undefined && { host: o.healthHost }),
    registry,
    log: o.log,
    checks: {
      leader: () => elector === undefined || elector.isLeader() || 'not the leader',
      'informers-synced': () => running?.hasSynced() ?? 'controllers not started',
    },
  });
  const work = async (sig: AbortSignal): Promise<void> => {
    running = startControllers({
      client: kv,
      workers: o.workers,
      log: o.log,
      registry,
      signal: sig,
      launcher: o.launcher,
      ...(o.watchNamespace !== undefined && { namespace: o.watchNamespace }),
    });
    await running.done;
    running = undefined;
  };
  try {
    if (!o.leaderElect) {
      await work(signal);
      return;
    }
    elector = new LeaderElector({
      client,
      namespace: o.leaseNamespace,
      name: o.leaseName ?? LEASE_NAME,
      identity: `${hostname()}_${randomUUID().slice(0, 8)}`,
      ...(o.lease !== undefined && {
        leaseDurationMs: o.lease.durationMs,
        renewDeadlineMs: o.lease.renewDeadlineMs,
        retryPeriodMs: o.lease.retryPeriodMs,
      }),
      log: o.log,
      onStartedLeading: work,
      onStoppedLeading: (): void => {
        o.log.info('stopped leading');
      },
      metrics: { registry, component: 'controller' },
    });
    await elector.run(signal);
  } finally {
    await health.close();
    await client.destroy();
  }
}
