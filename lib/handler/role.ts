/**
 * The `handler` role (kubevirt cmd/virt-handler), one per node: a kube client speaking kubevirt.io through
 * the rename rules, the health and metrics server (`/healthz`, `/readyz` = the VMI and launcher Pod caches
 * synced, `/metrics`), the VMIs of this node synced with their launchers (start.ts), the device plugins
 * registered with the kubelet, the REST server for the api (console, VNC, lifecycle commands, guest queries) (when it has its TLS material), and the node
 * heartbeat with the node-labeller's labels (schedulable once the device plugins are registered). On SIGTERM
 * the queue drains, the REST server and the plugins stop, the node is marked unschedulable, and the guests
 * are left running: they belong to their launcher Pods, not to the handler.
 */
import { realClock } from '../kernel/clock.ts';
import { HttpKubeClient, type RestConfig } from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { HealthTls } from '../kernel/metrics/server.ts';
import {
  requireRegistry,
  runRole,
  untilAborted,
  type RoleContext,
  type RoleWork,
} from '../kernel/runtime/role.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { nodeResolver, startRestServer, type RestTls } from './rest/index.ts';
import { startDevicePlugins } from './device-plugins/start.ts';
import { runHeartbeat } from './node/heartbeat.ts';
import { startHandler, type StartHandlerOptions } from './start.ts';

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
  /** Where the kubelet looks for device plugins (it is fixed at /var/lib/kubelet/device-plugins). */
  readonly devicePluginsDir: string;
  /** Devices each plugin advertises (KubeVirt's --max-devices). */
  readonly maxDevices: number;
  /** The REST server; off without its TLS material. */
  readonly rest?: {
    readonly port: number;
    readonly host: string;
    readonly tls: RestTls;
    /** The CN the api's client certificate must carry ('' any; default KubeVirt's). */
    readonly requiredClientCommonName?: string;
  };
  /** The migration proxies' address and TLS; without them a migration through this node fails saying why. */
  readonly migration?: StartHandlerOptions['migration'];
  /** The install namespace: its KubeVirt resource's settings (SMBIOS, the VM options) are followed live. */
  readonly namespace?: string;
  readonly healthPort: number;
  readonly healthHost?: string;
  /** TLS on the health port, /metrics authorized by the cluster; plain and open without. */
  readonly metricsTls?: HealthTls | undefined;
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
    kubeletPodsDir: o.kubeletPodsDir,
    workers: o.workers,
    log: o.log,
    registry: requireRegistry(ctx),
    signal: stop.signal,
    ...(o.namespace !== undefined && { configNamespace: o.namespace }),
    ...(o.migration !== undefined && { migration: o.migration }),
  });
  // Also when what follows fails to start: the VMI side stops with the role.
  ctx.defer(async () => {
    stop.abort();
    await running.done;
  });
  ctx.readinessCheck(
    'vmis-synced',
    () => running.hasSynced() || 'VMI, launcher Pod or KubeVirt cache not synced',
  );
  const plugins = await startDevicePlugins({
    root: o.root,
    devicePluginsDir: o.devicePluginsDir,
    maxDevices: o.maxDevices,
    log: o.log,
  });
  ctx.defer(() => plugins.close());
  if (o.rest === undefined)
    o.log.info('console server off: no --tls-cert-file, --tls-key-file, --client-ca-file');
  else {
    const server = await startRestServer({
      port: o.rest.port,
      host: o.rest.host,
      tls: o.rest.tls,
      ...(o.rest.requiredClientCommonName !== undefined && {
        requiredClientCommonName: o.rest.requiredClientCommonName,
      }),
      resolver: nodeResolver({ vmis: running.vmis.store, launchers: running.launchers }),
      log: o.log,
      registry: requireRegistry(ctx),
      recorder: running.recorder,
    });
    ctx.defer(() => server.close());
  }
  return {
    run: async (signal): Promise<void> => {
      const heartbeat = runHeartbeat(
        {
          client,
          node: o.node,
          clock: realClock,
          log: o.log,
          labellerDir: o.labellerDir,
          devicesReady: () => plugins.ready(),
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
      health: {
        port: o.healthPort,
        host: o.healthHost,
        secure: o.metricsTls && { tls: o.metricsTls, config: o.config },
      },
      start: (ctx) => start(o, ctx),
    },
    signal,
  );
}
