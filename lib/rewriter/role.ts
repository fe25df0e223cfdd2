/**
 * The rewriter role (deckhouse kube-api-rewriter as a sidecar): the kube-api proxy on TCP (requests with their
 * own credentials only) and, when asked, on a unix socket (one without credentials runs as the rewriter), the
 * webhook proxy (when a webhook upstream is given; its TLS files are read again when they change), and the
 * monitoring listener (/metrics with the kube_api_rewriter_* metrics, /healthz, /readyz = the API server
 * answers). Runs until the signal aborts, then closes every listener.
 */
import type { RestConfig } from '../kernel/kube/index.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { HealthTls } from '../kernel/metrics/server.ts';
import { requireRegistry, runRole, type RoleContext, type RoleWork } from '../kernel/runtime/role.ts';
import type { UnixSocketOptions } from '../kernel/safepath/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES, type RewriteRules } from '../rename/index.ts';
import type { CredentialLess } from './proxy/identity.ts';
import { startKubeApiProxy } from './proxy/kube-api.ts';
import type { ListenAddress } from './proxy/listen-address.ts';
import { rewriterMetrics } from './proxy/metrics.ts';
import { UpstreamProbe } from './proxy/probe.ts';
import type { Endpoint, ProxyServer } from './proxy/serve.ts';
import { Upstream } from './proxy/upstream.ts';
import {
  startWebhookProxy,
  type WebhookCallers,
  type WebhookProxy,
  type WebhookProxyOptions,
} from './proxy/webhook.ts';
import { watchWebhookTls, type WebhookTlsFiles } from './proxy/webhook-reload.ts';

interface WebhookRoleOptions {
  readonly listen: ListenAddress;
  /** PEM text of the serving certificate and key. */
  readonly cert: string;
  readonly key: string;
  readonly upstream: string;
  readonly upstreamCa?: string | undefined;
  /** PEM text of the client certificate and key shown to the upstream. */
  readonly upstreamClient?: { readonly cert: string; readonly key: string } | undefined;
  /** Who may call the webhook proxy (undefined: anyone). */
  readonly callers?: WebhookCallers | undefined;
  /** Where the PEM above came from, watched for rotation (unwatched without). */
  readonly files?: WebhookTlsFiles | undefined;
}

export interface RewriterRoleOptions {
  /** The API server behind the kube-api proxy. */
  readonly config: RestConfig;
  /** The kube-api proxy on TCP: a request without credentials of its own gets 401. */
  readonly listen: ListenAddress;
  /** The kube-api proxy on a unix socket too: there a request without credentials runs as the rewriter. */
  readonly listenUnix?: UnixSocketOptions | undefined;
  readonly metricsListen: ListenAddress;
  /** TLS on the monitoring listener, /metrics authorized by the cluster as the rewriter; plain and open without. */
  readonly metricsTls?: HealthTls | undefined;
  readonly webhook?: WebhookRoleOptions | undefined;
  readonly maxBodyBytes: number;
  readonly log: Logger;
  /** Default: the KubeVirt rule set. */
  readonly rules?: RewriteRules;
  /** Called once every listener is up, with the ports they got (tests listen on port 0). */
  readonly onListening?: (ports: ListeningPorts) => void;
  /** How often /readyz probes the API server (default 10 s). */
  readonly probeIntervalMs?: number;
}

export interface ListeningPorts {
  readonly kubeApi: number;
  readonly webhook?: number;
  readonly metrics: number;
}

/** The webhook proxy, its TLS files watched when named; the role's shutdown stops both. */
async function webhookProxy(
  o: RewriterRoleOptions,
  w: WebhookRoleOptions,
  ctx: RoleContext,
  common: Pick<WebhookProxyOptions, 'index' | 'metrics' | 'maxBodyBytes'>,
): Promise<WebhookProxy> {
  const log = o.log.with({ proxy: 'webhook' });
  const proxy = await startWebhookProxy({
    ...common,
    ...w.listen,
    cert: w.cert,
    key: w.key,
    upstream: w.upstream,
    upstreamCa: w.upstreamCa,
    upstreamClient: w.upstreamClient,
    callers: w.callers,
    log,
  });
  ctx.defer(() => proxy.close());
  if (w.files === undefined) return proxy;
  const watches = watchWebhookTls({
    files: w.files,
    serving: { cert: w.cert, key: w.key, callersCa: w.callers?.ca },
    upstream: { ca: w.upstreamCa, client: w.upstreamClient },
    proxy,
    log,
  });
  ctx.defer(async () => {
    await Promise.all(watches.map((x) => x.close()));
  });
  return proxy;
}

async function start(o: RewriterRoleOptions, ctx: RoleContext): Promise<RoleWork> {
  const index = buildRuleIndex(o.rules ?? KUBEVIRT_REWRITE_RULES);
  const metrics = rewriterMetrics(requireRegistry(ctx));
  const upstream = new Upstream({ config: o.config });
  ctx.defer(() => upstream.destroy());
  const probe = new UpstreamProbe({
    upstream,
    ...(o.probeIntervalMs !== undefined && { intervalMs: o.probeIntervalMs }),
  });
  ctx.readinessCheck('upstream', probe.check);
  const common = { index, metrics, maxBodyBytes: o.maxBodyBytes };
  const listening = (s: ProxyServer): ProxyServer => {
    ctx.defer(() => s.close());
    return s;
  };
  const kubeApiProxy = async (endpoint: Endpoint, credentialLess: CredentialLess): Promise<ProxyServer> =>
    listening(
      await startKubeApiProxy({
        ...common,
        endpoint,
        credentialLess,
        upstream,
        log: o.log.with({ proxy: 'kube-api' }),
      }),
    );
  // The socket first: once the TCP port accepts, both serve (./dev run waits for the port).
  if (o.listenUnix !== undefined) await kubeApiProxy({ socket: o.listenUnix }, 'lend');
  const kubeApi = await kubeApiProxy(o.listen, 'refuse');
  const webhook = o.webhook && (await webhookProxy(o, o.webhook, ctx, common));
  o.onListening?.({
    kubeApi: kubeApi.port,
    ...(webhook !== undefined && { webhook: webhook.port }),
    metrics: ctx.healthPort ?? 0,
  });
  return { run: (signal) => probe.run(signal) };
}

export function runRewriterRole(o: RewriterRoleOptions, signal: AbortSignal): Promise<void> {
  return runRole(
    {
      component: 'rewriter',
      log: o.log,
      health: {
        port: o.metricsListen.port,
        host: o.metricsListen.host,
        secure: o.metricsTls && { tls: o.metricsTls, config: o.config },
      },
      start: (ctx) => start(o, ctx),
    },
    signal,
  );
}
