/** The `kubevirt_virt_<component>_leading_status` gauge (1 while this process leads, else 0). */
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { KvError } from '../errors/errors.ts';

export interface LeadingStatusOptions {
  registry: Registry;
  /** The role, e.g. 'controller' → kubevirt_virt_controller_leading_status; '-' becomes '_'. */
  component: string;
}

export function leadingStatusName(component: string): string {
  const c = component.replace(/-/g, '_');
  if (!/^[a-z][a-z0-9_]*$/.test(c)) {
    throw new KvError('KV_ERR_CONFIG', `invalid metrics component name: ${component}`);
  }
  return `kubevirt_virt_${c}_leading_status`;
}

/** The gauge for the component, registered once per registry (a second elector reuses it). */
export function leadingStatusGauge(opts: LeadingStatusOptions): Gauge {
  const name = leadingStatusName(opts.component);
  const existing = opts.registry.getSingleMetric(name);
  if (existing instanceof Gauge) return existing;
  return new Gauge({
    name,
    help: `Indication for an operating virt-${opts.component}: 1 while it holds the leader lease, else 0.`,
    registers: [opts.registry],
  });
}
