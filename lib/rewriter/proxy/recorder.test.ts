import { describe, expect, it } from '@jest/globals';
import { parseTarget } from '../../rename/target.ts';
import { IG } from '../../rename/testing/objects.ts';
import { KUBEVIRT } from '../../rename/testing/synthetic-rules.ts';
import { resourceLabel } from './recorder.ts';
import { call, startHarness } from './testing/harness.ts';

describe('the resource label', () => {
  it.each([
    ['/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/a', 'virtualmachineinstances'],
    [`/apis/${IG}/v1/internalvirtualizationvirtualmachines`, 'internalvirtualizationvirtualmachines'],
    ['/api/v1/namespaces/ns/pods/p/log', 'pods'],
    ['/api/v1/nodes', 'nodes'],
    ['/apis/apps/v1/namespaces/ns/daemonsets', 'daemonsets'],
    ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x', 'customresourcedefinitions'],
    ['/apis/kubevirt.io/v1', ''],
    ['/version', ''],
    ['/apis/kubevirt.io/v1/namespaces/ns/made-up', 'other'],
    ['/api/v1/namespaces/ns/virtualmachines', 'other'],
    ['/apis/example.com/v1/widgets', 'other'],
  ])('of %s is %j', (path, want) => {
    expect(resourceLabel(parseTarget(path, KUBEVIRT), KUBEVIRT)).toBe(want);
  });

  it('stays one value over 10,000 made-up resources, each forwarded and counted', async () => {
    const h = await startHarness();
    try {
      const n = 10_000;
      const paths = Array.from({ length: n }, (_, i) => `/apis/example.com/v1/namespaces/ns/made-up-${i}`);
      for (let i = 0; i < n; i += 100) await Promise.all(paths.slice(i, i + 100).map((p) => call(h, p)));
      expect(h.upstream.requests).toHaveLength(n);
      const metric = (await h.registry.getMetricsAsJSON()).find(
        (m) => m.name === 'kube_api_rewriter_client_requests_total',
      ) as { values: { labels: Record<string, unknown>; value: number }[] } | undefined;
      expect(metric?.values.map((v) => [v.labels['resource'], v.value])).toEqual([['other', n]]);
    } finally {
      await h.close();
    }
  }, 60_000);
});
