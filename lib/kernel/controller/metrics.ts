/** Reconcile outcome counters, label `controller` = the controller's name. One per Registry. */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

export type ReconcileOutcome = 'success' | 'requeue' | 'error' | 'terminal';

export class ControllerMetrics {
  private readonly reconciles: Counter<'controller' | 'result'>;
  private readonly terminalErrors: Counter<'controller'>;

  constructor(registry: Registry) {
    this.reconciles = new Counter({
      name: 'kubevirt_controller_reconcile_total',
      help: 'Total number of reconciliations per controller and result (success, requeue, error, terminal)',
      labelNames: ['controller', 'result'] as const,
      registers: [registry],
    });
    this.terminalErrors = new Counter({
      name: 'kubevirt_controller_terminal_errors_total',
      help: 'Total number of reconciliations that failed with a terminal (not retried) error',
      labelNames: ['controller'] as const,
      registers: [registry],
    });
  }

  reconciled(controller: string, result: ReconcileOutcome): void {
    this.reconciles.inc({ controller, result });
    if (result === 'terminal') this.terminalErrors.inc({ controller });
  }
}

const byRegistry = new WeakMap<Registry, ControllerMetrics>();

/** The ControllerMetrics of a registry, created on first use (metric names register once per registry). */
export function controllerMetricsFor(registry: Registry): ControllerMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = new ControllerMetrics(registry);
    byRegistry.set(registry, m);
  }
  return m;
}
