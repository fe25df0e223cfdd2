import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { leadingStatusGauge, leadingStatusName } from './leading-status.ts';

describe('leading status gauge', () => {
  it.each([
    ['controller', 'kubevirt_virt_controller_leading_status'],
    ['operator', 'kubevirt_virt_operator_leading_status'],
    ['pr-helper', 'kubevirt_virt_pr_helper_leading_status'],
  ])('names the gauge of %s %s', (component, want) => {
    expect(leadingStatusName(component)).toBe(want);
  });

  it.each(['', 'Controller', 'virt controller', '1st'])('rejects the component name %j', (component) => {
    expect(() => leadingStatusName(component)).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });

  it('registers once per registry and hands the same gauge to a second elector', () => {
    const registry = new Registry();
    const a = leadingStatusGauge({ registry, component: 'controller' });
    const b = leadingStatusGauge({ registry, component: 'controller' });
    expect(b).toBe(a);
    expect(registry.getMetricsAsArray()).toHaveLength(1);
  });
});
