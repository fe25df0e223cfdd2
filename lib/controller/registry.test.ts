import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { labelIndex } from '../kernel/informer/index-funcs.ts';
import { FakeListWatchClient, page } from '../kernel/informer/testing/fake-client.ts';
import { NODES, PODS } from '../kernel/kube/resources.ts';
import type { KubeObject } from '../kernel/kube/types.ts';
import { nopLogger } from '../kernel/log/log.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/gvr.ts';
import type { KubeVirt, VirtualMachineInstance } from '../kubevirt/index.ts';
import { InformerRegistry, watch } from './registry.ts';

const byNode = labelIndex('kubevirt.io/nodeName');
const byApp = labelIndex('app');

function registry(client = new FakeListWatchClient(() => page([], '1'))): InformerRegistry {
  return new InformerRegistry({
    client,
    clock: new FakeClock(),
    log: nopLogger,
    resyncPeriodMs: 0,
    namespaceOf: (_gvr, scope) => (scope === 'config' ? 'kubevirt' : 'ns1'),
  });
}

describe('InformerRegistry', () => {
  it('builds one informer per resource, namespace and selector, shared by every controller that declares it', () => {
    const r = registry();
    const a = r.register('a', {
      vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
      pods: watch<Pod>(PODS, { labelSelector: 'kubevirt.io' }),
    });
    const b = r.register('b', {
      instances: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
      launchers: watch<Pod>(PODS, { labelSelector: 'kubevirt.io' }),
      allPods: watch<Pod>(PODS),
    });
    const factory = r.build();
    expect(factory.keys()).toHaveLength(3);
    expect(b.caches().instances).toBe(a.caches().vmis);
    expect(b.caches().launchers).toBe(a.caches().pods);
    expect(b.caches().allPods).not.toBe(a.caches().pods);
    expect(r.informer(VIRTUAL_MACHINE_INSTANCES)).toBe(a.caches().vmis);
    expect(r.informer(PODS, { labelSelector: 'kubevirt.io' })).toBe(a.caches().pods);
    expect(r.declarations()).toEqual([
      { informer: 'virtualmachineinstances.kubevirt.io/v1 in ns1', indexes: [], by: ['a', 'b'] },
      { informer: 'pods/v1 in ns1 with selector "kubevirt.io"', indexes: [], by: ['a', 'b'] },
      { informer: 'pods/v1 in ns1', indexes: [], by: ['b'] },
    ]);
  });

  it('watches cluster-scoped resources everywhere and the config scope in its own namespace', async () => {
    const client = new FakeListWatchClient(() => page([], '1'));
    const r = registry(client);
    r.register('a', {
      nodes: watch<KubeObject>(NODES),
      kubevirts: watch<KubeVirt>(KUBEVIRTS, { scope: 'config' }),
      vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
    });
    const factory = r.build();
    const ac = new AbortController();
    factory.start(ac.signal);
    expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
    ac.abort();
    await factory.stopped();
    expect(client.lists.map((l) => l.namespace)).toEqual([undefined, 'kubevirt', 'ns1']);
    expect(r.declarations().map((d) => d.informer)).toEqual([
      'nodes/v1',
      'kubevirts.kubevirt.io/v1 in kubevirt',
      'virtualmachineinstances.kubevirt.io/v1 in ns1',
    ]);
  });

  it('gives the shared cache the indexes of every declaring controller', async () => {
    const pod = (name: string, node: string, app: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'ns1', labels: { 'kubevirt.io/nodeName': node, app } },
    });
    const client = new FakeListWatchClient(() => page([pod('p1', 'n1', 'x'), pod('p2', 'n2', 'x')], '1'));
    const r = registry(client);
    const a = r.register('a', { pods: watch<KubeObject>(PODS, { indexers: { node: byNode } }) });
    const b = r.register('b', { pods: watch<KubeObject>(PODS, { indexers: { node: byNode, app: byApp } }) });
    const factory = r.build();
    const ac = new AbortController();
    factory.start(ac.signal);
    await factory.waitForCacheSync(ac.signal);
    ac.abort();
    await factory.stopped();
    expect(
      a
        .caches()
        .pods.store.byIndex('app', 'x')
        .map((p) => p.metadata.name),
    ).toEqual(['p1', 'p2']);
    expect(
      b
        .caches()
        .pods.store.byIndex('node', 'n2')
        .map((p) => p.metadata.name),
    ).toEqual(['p2']);
    expect(r.declarations()[0]?.indexes).toEqual(['node', 'app']);
  });

  it('refuses an index name given another function, and leaves the registry as it was', () => {
    const r = registry();
    r.register('a', { pods: watch<KubeObject>(PODS, { indexers: { node: byNode } }) });
    expect(() =>
      r.register('b', {
        nodes: watch<KubeObject>(NODES),
        pods: watch<KubeObject>(PODS, { indexers: { node: labelIndex('kubevirt.io/nodeName') } }),
      }),
    ).toThrow('informer registry: b gives index "node" of pods/v1 in ns1 another function than a');
    expect(r.declarations()).toEqual([{ informer: 'pods/v1 in ns1', indexes: ['node'], by: ['a'] }]);
  });

  it('refuses a controller registered twice or after build', () => {
    const r = registry();
    r.register('a', { nodes: watch<KubeObject>(NODES) });
    expect(() => r.register('a', {})).toThrow('informer registry: a registered twice');
    r.build();
    expect(() => r.register('b', {})).toThrow('informer registry: b registered after build');
  });

  it('fails clearly on lookups it cannot answer', () => {
    const r = registry();
    const a = r.register('a', {
      nodes: watch<KubeObject>(NODES),
      pods: watch<Pod>(PODS, { labelSelector: 'kubevirt.io' }),
      allPods: watch<Pod>(PODS),
    });
    expect(() => a.caches()).toThrow('informer registry: not built yet');
    expect(() => r.informer(NODES)).toThrow('informer registry: not built yet');
    r.build();
    expect(() => r.informer(VIRTUAL_MACHINE_INSTANCES)).toThrow(
      'informer registry: no informer for virtualmachineinstances.kubevirt.io/v1 (declared: nodes/v1; ' +
        'pods/v1 in ns1 with selector "kubevirt.io"; pods/v1 in ns1)',
    );
    expect(() => r.informer(PODS)).toThrow(
      'informer registry: 2 informers for pods/v1, name its namespace or selector',
    );
    expect(() => r.informer(PODS, { namespace: 'other' })).toThrow('no informer for pods/v1');
    expect(r.informer(PODS, { labelSelector: undefined })).toBe(a.caches().allPods);
  });
});
