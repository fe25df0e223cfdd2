import { describe, expect, it } from '@jest/globals';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { controllerMetricsFor } from '../controller/metrics.ts';
import { leadingStatusGauge } from '../leader/leading-status.ts';
import { workQueueMetricsFor } from '../workqueue/metrics.ts';
import { lintMetricNames } from './lint.ts';
import { newRegistry } from './registry.ts';

describe('lintMetricNames', () => {
  it('passes every metric the kernel registers: process defaults, leading status, work queues, controllers', () => {
    const registry = newRegistry();
    for (const component of ['controller', 'operator', 'api', 'handler'])
      leadingStatusGauge({ registry, component });
    workQueueMetricsFor(registry);
    controllerMetricsFor(registry);
    expect(registry.getSingleMetric('kubevirt_workqueue_depth')).toBeDefined();
    expect(registry.getSingleMetric('kubevirt_controller_reconcile_total')).toBeDefined();
    expect(registry.getSingleMetric('process_cpu_seconds_total')).toBeDefined();
    expect(registry.getSingleMetric('kubevirt_virt_controller_leading_status')).toBeDefined();
    expect(lintMetricNames(registry)).toEqual([]);
  });

  it.each([
    ['counter', 'virt_controller_things_total', 'prefix'],
    ['gauge', 'kubevirt_vmiCount', 'snake-case'],
    ['gauge', 'kubevirt_vmi:phase', 'snake-case'],
    ['counter', 'kubevirt_vmi_migrations', 'counter-suffix'],
    ['gauge', 'kubevirt_vmi_migrations_total', 'total-on-non-counter'],
    ['histogram', 'kubevirt_vmi_start_latency_ms', 'base-units'],
    ['gauge', 'kubevirt_vmi_memory_kib', 'base-units'],
    ['gauge', 'kubevirt_virt_api_up', 'recording-rule'],
    ['gauge', 'kubevirt_no_help', 'help'],
  ] as const)('flags the %s %s (%s)', (type, name, rule) => {
    const registry = new Registry();
    const help = rule === 'help' ? ' ' : 'some help';
    const Ctor = { counter: Counter, gauge: Gauge, histogram: Histogram }[type];
    new Ctor({ name, help, registers: [registry] });
    expect(lintMetricNames(registry).map((v) => [v.name, v.rule])).toEqual([[name, rule]]);
  });

  it.each([
    ['counter', 'kubevirt_vmi_last_migration_timestamp_seconds'],
    ['histogram', 'kubevirt_vmi_phase_transition_time_seconds'],
    ['gauge', 'kubevirt_vmi_memory_resident_bytes'],
  ] as const)('accepts the %s %s', (type, name) => {
    const registry = new Registry();
    const Ctor = { counter: Counter, gauge: Gauge, histogram: Histogram }[type];
    new Ctor({ name, help: 'some help', registers: [registry] });
    expect(lintMetricNames(registry)).toEqual([]);
  });
});
