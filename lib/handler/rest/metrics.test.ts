import { describe, expect, it } from '@jest/globals';
import { lintMetricNames } from '../../kernel/metrics/lint.ts';
import { newRegistry } from '../../kernel/metrics/registry.ts';
import { restMetricsFor } from './metrics.ts';

describe('REST server metrics', () => {
  it('follow the naming rules, register once per registry and read the open sessions at collect time', async () => {
    const registry = newRegistry({ defaultMetrics: false });
    const m = restMetricsFor(registry);
    expect(restMetricsFor(registry)).toBe(m);
    expect(lintMetricNames(registry)).toEqual([]);
    const open = { console: 2, vnc: 1 };
    m.countSessionsWith((kind) => open[kind]);
    m.answered('pause', 202);
    m.answered('pause', 202);
    const text = await registry.metrics();
    expect(text).toContain('kubevirt_virt_handler_console_sessions{kind="console"} 2');
    expect(text).toContain('kubevirt_virt_handler_console_sessions{kind="vnc"} 1');
    expect(text).toContain('kubevirt_virt_handler_rest_requests_total{route="pause",code="202"} 2');
  });
});
