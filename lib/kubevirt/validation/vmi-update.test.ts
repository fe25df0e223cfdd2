import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { AdmissionCause } from './causes.ts';
import { ctxWith, inv, ns } from './testing/fixtures.ts';
import { changed, running, type Change } from './testing/vmis.ts';
import { validateVmiUpdate, type VmiUpdateContext } from './vmi-update.ts';

const user: VmiUpdateContext = { ...ctxWith(), isKubevirtServiceAccount: false };
const kubevirt: VmiUpdateContext = { ...ctxWith(), isKubevirtServiceAccount: true };

const addVolume =
  (
    volume: NonNullable<VirtualMachineInstance['spec']['volumes']>[number],
    disk?: { bus: 'scsi' | 'sata' },
  ): Change =>
  (v) => {
    v.spec.volumes?.push(volume);
    if (disk !== undefined) v.spec.domain.devices.disks?.push({ name: volume.name, disk });
  };

describe('validateVmiUpdate', () => {
  it.each<[string, VmiUpdateContext, Change, AdmissionCause[]]>([
    ['no change by a user', user, () => undefined, []],
    ['a plain label by a user', user, (v) => (v.metadata.labels = { ...v.metadata.labels, app: 'db' }), []],
    [
      'a spec change by a user',
      user,
      (v) => (v.spec.hostname = 'other'),
      [ns('', 'update of VMI object is restricted')],
    ],
    [
      'a reserved label change by a user',
      user,
      (v) => (v.metadata.labels = { app: 'web', 'kubevirt.io/nodeName': 'node-2' }),
      [ns('', 'modification of the following reserved kubevirt.io/ labels on a VMI object is prohibited')],
    ],
    [
      'a reserved label change by KubeVirt',
      kubevirt,
      (v) => delete v.metadata.labels?.['kubevirt.io/nodeName'],
      [],
    ],
    [
      'a hotplugged PVC on SCSI',
      kubevirt,
      addVolume(
        { name: 'data', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } },
        { bus: 'scsi' },
      ),
      [],
    ],
    [
      'a hotplugged PVC on SATA',
      kubevirt,
      addVolume({ name: 'data', persistentVolumeClaim: { claimName: 'c' } }, { bus: 'sata' }),
      [
        inv(
          '',
          "Hotplug configuration for disk [data] requires bus to be 'scsi' or 'virtio'. [sata] is not permitted.",
        ),
      ],
    ],
    [
      'a hotplugged containerDisk (Deckhouse fork)',
      kubevirt,
      addVolume({ name: 'iso', containerDisk: { image: 'img', hotpluggable: true } }, { bus: 'scsi' }),
      [],
    ],
    [
      'a hotplugged emptyDisk',
      kubevirt,
      addVolume({ name: 'tmp', emptyDisk: { capacity: '1Gi' } }, { bus: 'scsi' }),
      [inv('', 'volume tmp is not a PVC,DataVolume,MemoryDumpVolume or ContainerDisk')],
    ],
    [
      'a volume without a disk',
      kubevirt,
      addVolume({ name: 'data', persistentVolumeClaim: { claimName: 'c' } }),
      [inv('', 'mismatch between volumes declared (3) and required (2)')],
    ],
    [
      'a new volume whose disk is missing',
      kubevirt,
      (v) => {
        v.spec.volumes?.push({ name: 'a', persistentVolumeClaim: { claimName: 'c' } });
        v.spec.domain.devices.disks?.push({ name: 'b', disk: { bus: 'scsi' } });
      },
      [inv('', 'disk a does not exist')],
    ],
    [
      'the permanent volume removed',
      kubevirt,
      (v) => {
        v.spec.volumes = (v.spec.volumes ?? []).filter((x) => x.name !== 'root');
        v.spec.domain.devices.disks = (v.spec.domain.devices.disks ?? []).filter((x) => x.name !== 'root');
      },
      [inv('', 'Number of permanent volumes has changed')],
    ],
    [
      'the permanent volume changed',
      kubevirt,
      (v) => {
        const cd = v.spec.volumes?.[0]?.containerDisk;
        if (cd !== undefined) cd.image = 'registry/other:1';
      },
      [inv('', 'permanent volume root, changed')],
    ],
    [
      'the permanent disk changed',
      kubevirt,
      (v) => {
        const disk = v.spec.domain.devices.disks?.[0];
        if (disk !== undefined) disk.disk = { bus: 'sata' };
      },
      [inv('', 'permanent disk root, changed')],
    ],
    [
      "only a disk's serial changed (Deckhouse fork)",
      kubevirt,
      (v) => {
        const disk = v.spec.domain.devices.disks?.[1];
        if (disk !== undefined) disk.serial = 'new-serial';
      },
      [],
    ],
    [
      'a hotplugged volume changed',
      kubevirt,
      (v) => {
        const pvc = v.spec.volumes?.[1]?.persistentVolumeClaim;
        if (pvc !== undefined) pvc.claimName = 'other';
      },
      [inv('', 'hotplug volume hp, changed')],
    ],
    [
      'a hotplugged disk changed',
      kubevirt,
      (v) => {
        const disk = v.spec.domain.devices.disks?.[1];
        if (disk !== undefined) disk.disk = { bus: 'virtio' };
      },
      [inv('', 'hotplug disk hp, changed')],
    ],
    [
      "a hotplugged volume's disk swapped for another",
      kubevirt,
      (v) => {
        const disk = v.spec.domain.devices.disks?.[1];
        if (disk !== undefined) disk.name = 'other';
      },
      [inv('', "volume hp doesn't have a matching disk")],
    ],
    [
      'cpu.maxSockets changed',
      kubevirt,
      (v) => (v.spec.domain.cpu = { cores: 1, sockets: 1, threads: 1, maxSockets: 4 }),
      [inv('', 'CPU topology maxSockets changed')],
    ],
    [
      'a hotplug that breaks a spec rule',
      kubevirt,
      (v) => {
        v.spec.volumes?.push({ name: 'data', persistentVolumeClaim: { claimName: 'c' } });
        v.spec.domain.devices.disks?.push({ name: 'data', disk: { bus: 'scsi' }, bootOrder: 1 });
      },
      [
        inv(
          'spec.domain.devices.disks[2].bootOrder',
          'Boot order for spec.domain.devices.disks[2].bootOrder already set for a different device.',
        ),
      ],
    ],
  ])('%s', (_name, ctx, change, expected) => {
    expect(validateVmiUpdate(running(), changed(change), ctx)).toEqual(expected);
  });

  it('a migrated hotplugged volume may change', () => {
    const next = changed((v) => {
      const pvc = v.spec.volumes?.[1]?.persistentVolumeClaim;
      if (pvc !== undefined) pvc.claimName = 'migrated';
      v.status = { ...v.status, migratedVolumes: [{ volumeName: 'hp' }] };
    });
    expect(validateVmiUpdate(running(), next, kubevirt)).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['1Gi', '1024Mi', ''],
    ['1Gi', '2Gi', 'Memory maxGuest changed'],
  ])('maxGuest %s → %s', (from, to, message) => {
    const old = changed((v) => (v.spec.domain.memory = { guest: '1Gi', maxGuest: from }));
    const next = changed((v) => {
      v.spec.domain.memory = { guest: '1Gi', maxGuest: to };
      v.spec.hostname = 'h';
    });
    expect(validateVmiUpdate(old, next, kubevirt)).toEqual(message === '' ? [] : [inv('', message)]);
  });
});
