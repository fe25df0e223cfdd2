/**
 * One prom-client Registry per process, passed to everything that registers metrics (never the global one).
 *
 * The default process metrics (process_*, nodejs_*) are collected into it without a prefix, on purpose:
 * they are the standard families every Prometheus client exports under these names (KubeVirt's Go
 * components expose process_* and go_* unprefixed too), so existing dashboards and alerts work unchanged.
 * A kubevirt_ prefix would make them look like KubeVirt metrics, which they are not. The name lint
 * (lint.ts) skips exactly these standard families.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

/** Name prefixes of the standard client metrics; the kubevirt_ naming rules do not apply to them. */
export const STANDARD_METRIC_PREFIXES: readonly string[] = ['process_', 'nodejs_'];

export interface RegistryOptions {
  /** Collect prom-client's default process metrics (default true). */
  defaultMetrics?: boolean;
}

export function newRegistry(opts: RegistryOptions = {}): Registry {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}
