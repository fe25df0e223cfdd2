/**
 * The api's metrics, one set per Registry: answered requests by route (the subresource, `admission`,
 * `refused`) and HTTP status code (101 for a stream), their latency by route, and the open console and VNC
 * sessions (KubeVirt's virt-api gauge names, without its per-VMI label).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../kernel/clock.ts';

export interface ApiMetrics {
  /** Starts timing a request; the returned function records its route and code. */
  request(): (route: string, code: number) => void;
  /** A console or VNC session opened (+1) or ended (-1). */
  opened(kind: string, delta: 1 | -1): void;
}

export function newApiMetrics(registry: Registry, clock: Clock): ApiMetrics {
  const requests = new Counter({
    name: 'kubevirt_api_requests_total',
    help: 'Requests the virt-api answered, by route and HTTP status code',
    labelNames: ['route', 'code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'kubevirt_api_request_duration_seconds',
    help: 'Time the virt-api took to answer a request (to the upgrade, for streams), by route',
    labelNames: ['route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const gauges: Record<string, Gauge> = {
    console: new Gauge({
      name: 'kubevirt_console_active_connections',
      help: 'Open serial console sessions through the virt-api',
      registers: [registry],
    }),
    vnc: new Gauge({
      name: 'kubevirt_vnc_active_connections',
      help: 'Open VNC sessions through the virt-api',
      registers: [registry],
    }),
  };
  return {
    request: () => {
      const start = clock.now();
      return (route, code): void => {
        requests.inc({ route, code: String(code) });
        latency.observe({ route }, (clock.now() - start) / 1000);
      };
    },
    opened: (kind, delta): void => {
      gauges[kind]?.inc(delta);
    },
  };
}
