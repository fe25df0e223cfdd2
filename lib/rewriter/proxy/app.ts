/**
 * The rewriter role wired up: the kube-api proxy, the webhook proxy (when a webhook upstream is given), and
 * the monitoring listener (/metrics with the kube_api_rewriter_* metrics, /healthz, /readyz = the API server
 * answers). Runs until the signal aborts, then closes everything gracefully.
 */
import type { RestConfig } from '../../kernel/kube/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { newRegistry } from '../../kernel/metrics/registry.ts';
import { startHealthServer, type HealthServer } from '../../kernel/metrics/server.ts';
import { KUBEVIRT_REWRITE_RULES } from '../../rename/rules/kubevirt-rules.ts';
import { buildRuleIndex } from '../../rename/rules/rule-index.ts';
import type { RewriteRules } from '../../rename/rules/types.ts';
import { startKubeApiProxy } from './kube-api.ts';
import type { ListenAddress } from './listen-address.ts';
import { rewriterMetrics } from './metrics.ts';
import { UpstreamProbe } from './probe.ts';
import type { ProxyServer } from './serve.ts';
import { Upstream } from './upstream.ts';
import { startWebhookProxy } from './webhook.ts';

export interface WebhookAppOptions {
  readonly listen: ListenAddress;
  /** PEM text of the serving certificate and key. */
  readonly cert: string;
  readonly key: string;
  readonly upstream: string;
  readonly upstreamCa?: string | undefined;
}

export interface RewriterAppOptions {
  /** The API server behind the kube-api proxy. */
  readonly config: RestConfig;
  readonly listen: ListenAddress;
  readonly metricsListen: ListenAddress;
  readonly webhook?: WebhookAppOptions | undefined;
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

export async function runRewriter(o: RewriterAppOptions, signal: AbortSignal): Promise<void> {
  const index = buildRuleIndex(o.rules ?? KUBEVIRT_REWRITE_RULES);
  const registry = newRegistry();
  const metrics = rewriterMetrics(registry);
  const upstream = new Upstream({ config: o.config });
  const probe = new UpstreamProbe({
    upstream,
    ...(o.probeIntervalMs !== undefined && { intervalMs: o.probeIntervalMs }),
  });
  const common = { index, metrics, maxBodyBytes: o.maxBodyBytes };
  const servers: ProxyServer[] = [];
  let health: HealthServer | undefined;
  try {
    const kubeApi = await startKubeApiProxy({
      ...common,
      ...o.listen,
      upstream,
      log: o.log.with({ proxy: 'kube-api' }),
    });
    servers.push(kubeApi);
    let webhook: ProxyServer | undefined;
    if (o.webhook !== undefined) {
      const w = o.webhook;
      webhook = await startWebhookProxy({
        ...common,
        ...w.listen,
        cert: w.cert,
        key: w.key,
        upstream: w.upstream,
        upstreamCa: w.upstreamCa,
        log: o.log.with({ proxy: 'webhook' }),
      });
      servers.push(webhook);
    }
    health = await startHealthServer({
      port: o.metricsListen.port,
      ...(o.metricsListen.host !== undefined && { host: o.metricsListen.host }),
      registry,
      checks: { upstream: probe.check },
      log: o.log,
    });
    o.onListening?.({
      kubeApi: kubeApi.port,
      ...(webhook !== undefined && { webhook: webhook.port }),
      metrics: health.port,
    });
    await probe.run(signal);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await health?.close();
    await upstream.destroy();
  }
}
