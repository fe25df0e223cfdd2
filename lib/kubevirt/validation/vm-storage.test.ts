import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine } from '../v1/objects.ts';
import type { AdmissionCause } from './causes.ts';
import { ctxWith, inv, ns } from './testing/fixtures.ts';
import { validVm, type VmChange } from './testing/vms.ts';
import { validateVm, type VmContext } from './vm.ts';

const ctx: VmContext = { ...ctxWith(), isKubevirtServiceAccount: false, requestNamespace: 'ns' };

const withDvIn =
  (namespace: string): VmChange =>
  (vm) => {
    vm.spec.dataVolumeTemplates = [
      {
        metadata: { name: 'root-dv', namespace } as { name: string },
        spec: { storage: {}, source: { blank: {} } },
      },
    ];
    vm.spec.template.spec.volumes = [{ name: 'root', dataVolume: { name: 'root-dv' } }];
  };

const snapshotting = (vm: VirtualMachine): void => {
  vm.status = { snapshotInProgress: 'snap-1' };
};
const restoring = (vm: VirtualMachine): void => {
  vm.status = { restoreInProgress: 'restore-1' };
};

describe('validateVm: storage', () => {
  it.each<[string, VmChange[], VmChange[] | undefined, AdmissionCause[]]>([
    ['a DataVolume template in the VM namespace', [withDvIn('ns')], undefined, []],
    [
      'a DataVolume template in another namespace',
      [withDvIn('other')],
      undefined,
      [
        inv(
          'spec.dataVolumeTemplates[0]',
          'Embedded DataVolume namespace other differs from VM namespace ns',
        ),
      ],
    ],
    ['an unchanged foreign template on update', [withDvIn('other')], [withDvIn('other')], []],
    ['a snapshot running, nothing changed', [snapshotting], [], []],
    [
      'a snapshot running, a volume changed',
      [
        snapshotting,
        (vm) => vm.spec.template.spec.volumes?.push({ name: 'd', emptyDisk: { capacity: '1Gi' } }),
      ],
      [],
      [ns('spec', 'Cannot update vm disks or volumes until snapshot "snap-1" completes')],
    ],
    [
      'a snapshot running, the run strategy changed',
      [snapshotting, (vm) => (vm.spec.runStrategy = 'Halted')],
      [],
      [ns('spec', 'Cannot update vm running state until snapshot "snap-1" completes')],
    ],
    [
      'a restore running, the run strategy changed',
      [restoring, (vm) => (vm.spec.runStrategy = 'Halted')],
      [],
      [ns('spec', 'Cannot update VM runStrategy until restore "restore-1" completes')],
    ],
    [
      'a restore running, running: true for Always',
      [restoring, (vm) => (vm.spec = { running: true, template: vm.spec.template })],
      [],
      [],
    ],
  ])('%s', (_name, changes, oldChanges, expected) => {
    const vm = validVm(...changes);
    const old = oldChanges === undefined ? undefined : validVm(...oldChanges);
    expect(validateVm(vm, old, ctx)).toEqual(expected);
  });

  it('a VM without a namespace takes the request namespace', () => {
    const vm = validVm(withDvIn('other'), (v) => delete v.metadata.namespace);
    expect(validateVm(vm, undefined, { ...ctx, requestNamespace: 'elsewhere' })).toEqual([
      inv(
        'spec.dataVolumeTemplates[0]',
        'Embedded DataVolume namespace other differs from VM namespace elsewhere',
      ),
    ]);
  });
});
