/**
 * The `operator` role (kubevirt cmd/virt-operator): on every replica, the KubeVirt resource's webhook server,
 * serving the certificate the install's Secret holds (watched, so a rotation is served to new connections);
 * while this replica holds the Lease, the controller that installs, updates, reports and uninstalls
 * (controller/start.ts). It speaks kubevirt.io to the KubeVirt resource through the rename rules and writes what
 * it installs as stored.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { realClock } from '../kernel/clock.ts';
import { SharedInformer } from '../kernel/informer/informer.ts';
import { HttpKubeClient, type KubeClient, type RestConfig } from '../kernel/kube/index.ts';
import type { KubeObject } from '../kernel/kube/types.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { HealthTls } from '../kernel/metrics/server.ts';
import { requireRegistry, runRole, type RoleContext, type RoleWork } from '../kernel/runtime/role.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { buildInfo } from '../version/version.ts';
import type { OperatorEnv } from './config/from-kubevirt.ts';
import { runOperatorController } from './controller/start.ts';
import { X509_ISSUER } from './generate/certs/issuer.ts';
import { OPERATOR_LEASE, SECRETS, TLS_CERT_KEY, TLS_KEY_KEY } from './generate/names.ts';
import { startOperatorWebhookServer, type OperatorWebhookServer } from './webhooks/server.ts';

export interface OperatorRoleOptions {
  readonly config: RestConfig;
  readonly env: OperatorEnv;
  readonly leaderElect: boolean;
  readonly healthPort: number;
  readonly healthHost?: string;
  /** TLS on the health port, /metrics authorized by the cluster; plain and open without. */
  readonly metricsTls?: HealthTls | undefined;
  readonly webhook: {
    readonly port: number;
    readonly host?: string;
    /** Who may call the webhooks (kube-apiserver's webhook client certificate); undefined: anyone. */
    readonly callers?: { readonly ca: string; readonly allowedNames: readonly string[] };
  };
  /** Lease timing (client-go's 15 s / 10 s / 2 s by default); tests shorten it. */
  readonly lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  readonly log: Logger;
}

const SECRETS_GVR = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
} as const;

/** Serves the operator's certificate from its Secret as it appears and rotates. */
function serveOwnCertificate(
  client: KubeClient,
  o: OperatorRoleOptions,
  server: OperatorWebhookServer,
  ctx: RoleContext,
): void {
  const informer = new SharedInformer<KubeObject & { data?: Record<string, string> }>({
    client,
    gvr: SECRETS_GVR,
    namespace: o.env.namespace,
    fieldSelector: `metadata.name=${SECRETS.operator}`,
    log: o.log,
  });
  const use = (s: KubeObject & { data?: Record<string, string> }): void => {
    const text = (k: string): string => Buffer.from(s.data?.[k] ?? '', 'base64').toString('utf8');
    try {
      server.setServingCertificate(text(TLS_CERT_KEY), text(TLS_KEY_KEY));
      o.log.info('webhook serving certificate loaded', { secret: SECRETS.operator });
    } catch (err) {
      o.log.warning('webhook serving certificate refused; keeping the one in use', {
        secret: SECRETS.operator,
        reason: err,
      });
    }
  };
  informer.addEventHandler({
    onAdd: use,
    onUpdate: (_old, s) => {
      use(s);
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  ctx.defer(async () => {
    stop.abort();
    await running;
  });
}

async function start(o: OperatorRoleOptions, ctx: RoleContext): Promise<RoleWork> {
  const client = new HttpKubeClient(o.config);
  ctx.defer(() => client.destroy());
  const kubevirtClient = rewritingClient(client, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  const server = await startOperatorWebhookServer({
    port: o.webhook.port,
    host: o.webhook.host,
    client: kubevirtClient,
    direct: client,
    callers: o.webhook.callers,
    log: o.log,
  });
  ctx.defer(() => server.close());
  serveOwnCertificate(client, o, server, ctx);
  const run = (signal: AbortSignal): Promise<void> =>
    runOperatorController(
      {
        kubevirtClient,
        client,
        env: o.env,
        operatorVersion: buildInfo().version,
        issuer: X509_ISSUER,
        clock: realClock,
        log: o.log,
        registry: requireRegistry(ctx),
      },
      signal,
    );
  if (!o.leaderElect) return { run };
  return {
    run,
    lease: {
      client,
      namespace: o.env.namespace,
      name: OPERATOR_LEASE,
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

export function runOperatorRole(o: OperatorRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'operator',
      log: o.log,
      health: {
        port: o.healthPort,
        ...(o.healthHost !== undefined && { host: o.healthHost }),
        secure: o.metricsTls && { tls: o.metricsTls, config: o.config },
      },
      start: (ctx) => start(o, ctx),
    },
    signal,
  );
}
