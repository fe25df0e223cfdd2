import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstanceSpec } from '../../../kubevirt/index.ts';
import { newSpec, type SpecOption } from '../../../kubevirt/testing/builders.ts';
import { backendStorageVolumes } from './volumes.ts';

const tpm =
  (t: NonNullable<VirtualMachineInstanceSpec['domain']['devices']['tpm']>): SpecOption =>
  (s) => {
    s.domain.devices.tpm = t;
  };
const persistentEfi: SpecOption = (s) => {
  s.domain.firmware = { bootloader: { efi: { persistent: true } } };
};

const PRIVATE_PARENTS = ['private-libvirt', 'private-libvirt-qemu'];
const LV_PARENTS = ['lv-libvirt', 'lv-libvirt-qemu'];
const META = 'vm-state:meta→/var/run/kubevirt-private/backend-storage-meta';
const PRIVATE_MOUNTS = [
  'private-libvirt→/var/run/kubevirt-private/libvirt',
  'private-libvirt-qemu→/var/run/kubevirt-private/libvirt/qemu',
];
const SWTPM = [
  'lv-libvirt→/lv/libvirt',
  'lv-libvirt-qemu→/lv/libvirt/qemu',
  'vm-state:swtpm→/lv/libvirt/qemu/swtpm',
  'vm-state:swtpm-localca→/lv/var/lib/swtpm-localca',
];
const NVRAM = 'vm-state:nvram→/var/run/kubevirt-private/libvirt/qemu/nvram';

describe('backendStorageVolumes (kubevirt withBackendStorage, non-root)', () => {
  it.each<[string, SpecOption[], string[], string[]]>([
    ['no persistent state', [], [], []],
    ['a TPM that is not persistent', [tpm({})], [], []],
    ['a persistent TPM switched off', [tpm({ enabled: false, persistent: true })], [], []],
    [
      'a persistent TPM',
      [tpm({ persistent: true })],
      ['vm-state', ...PRIVATE_PARENTS, ...LV_PARENTS],
      [META, ...PRIVATE_MOUNTS, ...SWTPM],
    ],
    [
      'a persistent EFI store',
      [persistentEfi],
      ['vm-state', ...PRIVATE_PARENTS],
      [META, ...PRIVATE_MOUNTS, NVRAM],
    ],
    [
      'both',
      [tpm({ persistent: true }), persistentEfi],
      ['vm-state', ...PRIVATE_PARENTS, ...LV_PARENTS],
      [META, ...PRIVATE_MOUNTS, ...SWTPM, NVRAM],
    ],
  ])('%s', (_name, opts, volumes, mounts) => {
    const r = backendStorageVolumes(newSpec(...opts), 'persistent-state-for-vm-abc12');
    expect(r.volumes.map((v) => v.name)).toEqual(volumes);
    expect(
      r.mounts.map((m) => `${m.name}${m.subPath !== undefined ? `:${m.subPath}` : ''}→${m.mountPath}`),
    ).toEqual(mounts);
  });

  it('mounts the claim read-write, by name', () => {
    const r = backendStorageVolumes(newSpec(tpm({ persistent: true })), 'persistent-state-for-vm-abc12');
    expect(r.volumes[0]).toEqual({
      name: 'vm-state',
      persistentVolumeClaim: { claimName: 'persistent-state-for-vm-abc12', readOnly: false },
    });
    expect(r.mounts.filter((m) => m.name === 'vm-state').every((m) => m.readOnly === false)).toBe(true);
  });
});
