/**
 * The REST server's metrics, one set per Registry: open streaming sessions by kind (a collect()-time gauge)
 * and answered requests by route and HTTP status (101 for an upgraded stream).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StreamRoute } from './routes.ts';

export class RestMetrics {
  private readonly requests: Counter<'route' | 'code'>;
  private sessions: (kind: StreamRoute) => number = () => 0;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'kubevirt_virt_handler_rest_requests_total',
      help: 'Requests the virt-handler REST server answered, by route and HTTP status code',
      labelNames: ['route', 'code'] as const,
      registers: [registry],
    });
    const sessions = (kind: StreamRoute): number => this.sessions(kind);
    new Gauge({
      name: 'kubevirt_virt_handler_console_sessions',
      help: 'Open serial console and VNC websocket sessions on the virt-handler REST server, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
      collect(): void {
        this.set({ kind: 'console' }, sessions('console'));
        this.set({ kind: 'vnc' }, sessions('vnc'));
      },
    });
  }

  /** Where the gauge reads the open sessions (the running server's slots). */
  countSessionsWith(count: (kind: StreamRoute) => number): void {
    this.sessions = count;
  }

  answered(route: string, code: number): void {
    this.requests.inc({ route, code: String(code) });
  }
}

const byRegistry = new WeakMap<Registry, RestMetrics>();

export function restMetricsFor(registry: Registry): RestMetrics {
  let m = byRegistry.get(registry);
  if (m === undefined) {
    m = new RestMetrics(registry);
    byRegistry.set(registry, m);
  }
  return m;
}
