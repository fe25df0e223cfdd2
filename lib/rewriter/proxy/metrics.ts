/**
 * The kube-api-rewriter metrics (deckhouse/virtualization images/kube-api-rewriter/METRICS.md): names, labels
 * and buckets as the original sidecar exports them, so its dashboards and alerts keep working.
 *
 * These names break our `kubevirt_` prefix rule on purpose: they are the KubeVirt fork's (Deckhouse) rewriter
 * metrics, which this role replaces one to one. The name lint (kernel/metrics/lint.ts) must not be run over
 * them; they live in the rewriter's own registry next to the standard process metrics.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** 1, 2, 5, 10, 20, 50, 100, 200, 500 ms, 1, 2, 5 s. */
const REWRITER_BUCKETS: readonly number[] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];

export type ProxyName = 'kube-api' | 'webhook';
export type Decision = 'pass' | 'rewrite';

/** name, resource (from the URL path when known, else 'other': recorder.ts), method, watch ('true' | 'false'). */
export interface BaseLabels {
  readonly name: ProxyName;
  readonly resource: string;
  readonly method: string;
  readonly watch: 'true' | 'false';
}

type Base = 'name' | 'resource' | 'method' | 'watch';
const BASE = ['name', 'resource', 'method', 'watch'] as const;

export interface RewriterMetrics {
  readonly clientRequests: Counter<Base | 'decision'>;
  readonly targetResponses: Counter<Base | 'decision' | 'status' | 'error'>;
  readonly targetResponseInvalidJson: Counter<Base | 'status'>;
  readonly requestsHandled: Counter<Base | 'decision' | 'status' | 'error'>;
  readonly requestHandlingDuration: Histogram<Base | 'decision' | 'status'>;
  readonly rewrites: Counter<Base | 'side' | 'operation' | 'error'>;
  readonly rewriteDuration: Histogram<Base | 'side' | 'operation'>;
  readonly fromClientBytes: Counter<Base | 'decision'>;
  readonly toTargetBytes: Counter<Base | 'decision'>;
  readonly fromTargetBytes: Counter<Base | 'decision'>;
  readonly toClientBytes: Counter<Base | 'decision'>;
}

const PREFIX = 'kube_api_rewriter_';

/** Registers the metrics in `registry` (one set per process, shared by the kube-api and webhook proxies). */
export function rewriterMetrics(registry: Registry): RewriterMetrics {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, extra: readonly L[]): Counter<Base | L> =>
    new Counter({ name: PREFIX + name, help, labelNames: [...BASE, ...extra], registers });
  const histogram = <L extends string>(
    name: string,
    help: string,
    extra: readonly L[],
  ): Histogram<Base | L> =>
    new Histogram({
      name: PREFIX + name,
      help,
      labelNames: [...BASE, ...extra],
      buckets: [...REWRITER_BUCKETS],
      registers,
    });
  const decision = ['decision'] as const;
  return {
    clientRequests: counter('client_requests_total', 'Total number of received client requests.', decision),
    targetResponses: counter('target_responses_total', 'Total number of responses from the target.', [
      'decision',
      'status',
      'error',
    ] as const),
    targetResponseInvalidJson: counter(
      'target_response_invalid_json_total',
      'Total target responses with invalid JSON (or not JSON at all, e.g. Protobuf), passed through.',
      ['status'] as const,
    ),
    requestsHandled: counter('requests_handled_total', 'Total number of requests handled by the proxy.', [
      'decision',
      'status',
      'error',
    ] as const),
    requestHandlingDuration: histogram(
      'request_handling_duration_seconds',
      'Duration of request handling for non-watch requests, and of each event for watch requests.',
      ['decision', 'status'] as const,
    ),
    rewrites: counter('rewrites_total', 'Total rewrites executed by the proxy.', [
      'side',
      'operation',
      'error',
    ] as const),
    rewriteDuration: histogram('rewrite_duration_seconds', 'Duration of rewrite operations.', [
      'side',
      'operation',
    ] as const),
    fromClientBytes: counter('from_client_bytes_total', 'Total bytes received from the client.', decision),
    toTargetBytes: counter('to_target_bytes_total', 'Total bytes transferred to the target.', decision),
    fromTargetBytes: counter('from_target_bytes_total', 'Total bytes received from the target.', decision),
    toClientBytes: counter('to_client_bytes_total', 'Total bytes transferred back to the client.', decision),
  };
}
