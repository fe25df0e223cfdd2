/** The rewriter's IO shell: the kube-api proxy and the webhook proxy (the role's wiring is ../role.ts). */
export { DEFAULT_MAX_BODY_BYTES, type KubeApiDeps } from './deps.ts';
export { handleKubeApi, startKubeApiProxy, type KubeApiProxyOptions } from './kube-api.ts';
export { parseListenAddress, type ListenAddress } from './listen-address.ts';
export { REWRITER_BUCKETS, rewriterMetrics, type RewriterMetrics } from './metrics.ts';
export { UpstreamProbe } from './probe.ts';
export type { ProxyServer } from './serve.ts';
export { Upstream, type UpstreamOptions } from './upstream.ts';
export { startWebhookProxy, type WebhookCallers, type WebhookProxyOptions } from './webhook.ts';
/** The common name the webhook proxy expects of its caller by default: kube-apiserver's webhook client. */
export { APISERVER_WEBHOOK_CLIENT_CN as WEBHOOK_CALLER_CN } from '../../kubevirt/webhooks.ts';
