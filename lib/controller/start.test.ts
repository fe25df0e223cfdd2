import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { FakeListWatchClient, page } from '../kernel/informer/testing/fake-client.ts';
import { nopLogger } from '../kernel/log/log.ts';
import { CONTROLLERS } from './controllers.ts';
import { InformerRegistry } from './registry.ts';
import { enabledControllers, watchNamespaces } from './start.ts';

function declared(opts: Parameters<typeof watchNamespaces>[0]): ReturnType<InformerRegistry['declarations']> {
  const r = new InformerRegistry({
    client: new FakeListWatchClient(() => page([], '1')),
    clock: new FakeClock(),
    log: nopLogger,
    resyncPeriodMs: 0,
    namespaceOf: watchNamespaces(opts),
  });
  for (const c of CONTROLLERS) c.register(r);
  return r.declarations();
}

describe('the controllers on the informer registry', () => {
  it('share one informer per resource, with the indexes each controller reads', () => {
    expect(declared({ namespace: 'ns1', configNamespace: 'kubevirt' })).toEqual([
      {
        informer: 'virtualmachines.kubevirt.io/v1 in ns1',
        indexes: [],
        by: ['virt-controller-vm', 'virt-controller-vmi'],
      },
      {
        informer: 'virtualmachineinstances.kubevirt.io/v1 in ns1',
        indexes: ['claim', 'node', 'vmi-status-node'],
        by: [
          'virt-controller-vm',
          'virt-controller-vmi',
          'virt-controller-node',
          'virt-controller-dra-status',
          'virt-controller-migration',
          'virt-controller-evacuation',
        ],
      },
      {
        informer: 'kubevirts.kubevirt.io/v1 in kubevirt',
        indexes: [],
        by: [
          'virt-controller-vm',
          'virt-controller-vmi',
          'virt-controller-migration',
          'virt-controller-evacuation',
        ],
      },
      {
        informer: 'pods/v1 in ns1 with selector "kubevirt.io"',
        indexes: ['vmi-uid', 'owner-pod-uid', 'node', 'migration-uid'],
        by: [
          'virt-controller-vmi',
          'virt-controller-node',
          'virt-controller-dra-status',
          'virt-controller-migration',
          'virt-controller-evacuation',
        ],
      },
      {
        informer: 'persistentvolumeclaims/v1 in ns1',
        indexes: [],
        by: ['virt-controller-vmi', 'virt-controller-migration'],
      },
      { informer: 'nodes/v1', indexes: [], by: ['virt-controller-node', 'virt-controller-evacuation'] },
      {
        informer: 'resourceclaims.resource.k8s.io/v1 in ns1',
        indexes: [],
        by: ['virt-controller-dra-status'],
      },
      {
        informer: 'resourceslices.resource.k8s.io/v1',
        indexes: ['driver-pool'],
        by: ['virt-controller-dra-status'],
      },
      {
        informer: 'virtualmachineinstancemigrations.kubevirt.io/v1 in ns1',
        indexes: ['migration-vmi', 'migration-own-uid'],
        by: ['virt-controller-migration', 'virt-controller-evacuation'],
      },
      {
        informer: 'poddisruptionbudgets.policy/v1 in ns1',
        indexes: ['pdb-vmi'],
        by: ['virt-controller-disruption-budget'],
      },
    ]);
  });

  it('watches every namespace when none is set, Pods everywhere on request, the KubeVirt CR by default in the watched one', () => {
    expect(declared({}).map((d) => d.informer)).toEqual([
      'virtualmachines.kubevirt.io/v1 in every namespace',
      'virtualmachineinstances.kubevirt.io/v1 in every namespace',
      'kubevirts.kubevirt.io/v1 in every namespace',
      'pods/v1 in every namespace with selector "kubevirt.io"',
      'persistentvolumeclaims/v1 in every namespace',
      'nodes/v1',
      'resourceclaims.resource.k8s.io/v1 in every namespace',
      'resourceslices.resource.k8s.io/v1',
      'virtualmachineinstancemigrations.kubevirt.io/v1 in every namespace',
      'poddisruptionbudgets.policy/v1 in every namespace',
    ]);
    expect(declared({ namespace: 'ns1', podsInAllNamespaces: true }).map((d) => d.informer)).toEqual([
      'virtualmachines.kubevirt.io/v1 in ns1',
      'virtualmachineinstances.kubevirt.io/v1 in ns1',
      'kubevirts.kubevirt.io/v1 in ns1',
      'pods/v1 in every namespace with selector "kubevirt.io"',
      'persistentvolumeclaims/v1 in ns1',
      'nodes/v1',
      'resourceclaims.resource.k8s.io/v1 in ns1',
      'resourceslices.resource.k8s.io/v1',
      'virtualmachineinstancemigrations.kubevirt.io/v1 in ns1',
      'poddisruptionbudgets.policy/v1 in ns1',
    ]);
  });
});

describe('enabledControllers', () => {
  it('runs every controller by default, and all but the evacuation controller when it is off', () => {
    const queues = (evacuation?: boolean): string[] =>
      enabledControllers(evacuation === undefined ? {} : { evacuation }).map((d) => d.queue);
    expect(queues()).toEqual(CONTROLLERS.map((d) => d.queue));
    expect(queues()).toContain('virt-controller-evacuation');
    expect(queues(false)).toEqual(
      CONTROLLERS.map((d) => d.queue).filter((q) => q !== 'virt-controller-evacuation'),
    );
  });
});
