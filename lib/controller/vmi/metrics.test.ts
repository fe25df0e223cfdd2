import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { lintMetricNames } from '../../kernel/metrics/lint.ts';
import { vmiMetricsFor } from './metrics.ts';

describe('VmiMetrics', () => {
  it('registers names that pass the metric lint, once per registry', () => {
    const registry = new Registry();
    expect(vmiMetricsFor(registry)).toBe(vmiMetricsFor(registry));
    expect(lintMetricNames(registry)).toEqual([]);
  });

  it('observes seconds from creation per phase, ignoring objects without a creation time', async () => {
    const registry = new Registry();
    const m = vmiMetricsFor(registry);
    m.phaseReached('Scheduled', '2026-01-01T00:00:00Z', Date.parse('2026-01-01T00:00:03Z'));
    m.phaseReached('Scheduled', undefined, 0);
    const text = await registry.metrics();
    expect(text).toContain(
      'kubevirt_vmi_phase_transition_time_from_creation_seconds_bucket{le="5",phase="Scheduled"} 1',
    );
    expect(text).toContain(
      'kubevirt_vmi_phase_transition_time_from_creation_seconds_count{phase="Scheduled"} 1',
    );
  });
});
