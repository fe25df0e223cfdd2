/** Invalid or unsupported VMIs: toDomain throws a ConversionError naming the field, with a stable code. */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceSpec } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import type { ConverterContextOptions } from './context.ts';
import { toDomain } from './convert.ts';
import { ConversionError, isConversionError } from './errors.ts';
import { testCtx, testVmi } from './testing/vmi.ts';

type Patch = (s: VirtualMachineInstanceSpec) => void;

/** A disk `d` (virtio) on a PVC, then the patch. */
function vmiWithDisk(patch: Patch): VirtualMachineInstance {
  return testVmi(
    withSpec((s) => {
      s.domain.devices.disks = [{ name: 'd', disk: { bus: 'virtio' } }];
      s.volumes = [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }];
    }),
    withSpec(patch),
  );
}

function conversionError(
  vmi: VirtualMachineInstance,
  ctx: Partial<ConverterContextOptions> = {},
): ConversionError {
  try {
    toDomain(vmi, testCtx(ctx));
  } catch (err) {
    if (isConversionError(err)) return err;
    throw err;
  }
  throw new Error('toDomain did not fail');
}

const disk0 = 'spec.domain.devices.disks[0]';

describe('conversion errors', () => {
  it.each<[string, Patch, string, RegExp]>([
    ['a disk naming a missing volume', (s) => (s.volumes = []), `${disk0}.name`, /no volume named d/],
    [
      'the second disk naming a missing volume',
      (s) => s.domain.devices.disks?.push({ name: 'gone', disk: { bus: 'sata' } }),
      'spec.domain.devices.disks[1].name',
      /no volume named gone/,
    ],
    [
      'an unsupported bus',
      (s) => (s.domain.devices.disks = [{ name: 'd', disk: { bus: 'ide' as 'sata' } }]),
      `${disk0}.disk.bus`,
      /unsupported disk bus ide/,
    ],
    [
      'no memory',
      (s) => {
        delete s.domain.memory;
      },
      'spec.domain.memory.guest',
      /no memory requested/,
    ],
    [
      'a CD-ROM on virtio',
      (s) => (s.domain.devices.disks = [{ name: 'd', cdrom: { bus: 'virtio' } }]),
      `${disk0}.cdrom.bus`,
      /invalid for CD-ROM/,
    ],
    [
      'a LUN on a containerDisk',
      (s) => {
        s.domain.devices.disks = [{ name: 'd', lun: { bus: 'scsi' } }];
        s.volumes = [{ name: 'd', containerDisk: { image: 'x' } }];
      },
      `${disk0}.lun`,
      /needs a persistentVolumeClaim/,
    ],
    [
      'an unknown error policy',
      (s) => (s.domain.devices.disks = [{ name: 'd', errorPolicy: 'panic' as 'stop' }]),
      `${disk0}.errorPolicy`,
      /must be one of/,
    ],
    [
      'an unknown cache mode',
      (s) => (s.domain.devices.disks = [{ name: 'd', cache: 'unsafe' as 'none' }]),
      `${disk0}.cache`,
      /must be one of/,
    ],
    [
      'a shareable disk with writeback cache',
      (s) => (s.domain.devices.disks = [{ name: 'd', shareable: true, cache: 'writeback' }]),
      `${disk0}.cache`,
      /shareable disk requires cache none/,
    ],
    [
      'a PCI address on SATA',
      (s) => (s.domain.devices.disks = [{ name: 'd', disk: { bus: 'sata', pciAddress: '0000:00:05.0' } }]),
      `${disk0}.disk.pciAddress`,
      /needs the virtio bus/,
    ],
    [
      'a duplicate boot order',
      (s) => {
        s.domain.devices.disks = [{ name: 'd', bootOrder: 1 }];
        s.domain.devices.interfaces = [{ name: 'default', bridge: {}, bootOrder: 1 }];
        s.networks = [{ name: 'default', pod: {} }];
      },
      'spec.domain.devices.interfaces[0].bootOrder',
      /already set for a different device/,
    ],
    [
      'a zero boot order',
      (s) => (s.domain.devices.disks = [{ name: 'd', bootOrder: 0 }]),
      `${disk0}.bootOrder`,
      /greater than 0/,
    ],
    [
      'two disks of one name',
      (s) => s.domain.devices.disks?.push({ name: 'd' }),
      'spec.domain.devices.disks[1].name',
      /duplicate disk d/,
    ],
    [
      'a volume without a source',
      (s) => (s.volumes = [{ name: 'd' }]),
      'spec.volumes[0]',
      /no source a disk can use/,
    ],
  ])('%s → %s', (_, patch, field, message) => {
    const err = conversionError(vmiWithDisk(patch));
    expect(err.code).toBe('KV_ERR_INVALID');
    expect(err.reason).toBe('invalid');
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(`${field}: `)).toBe(true);
  });

  it('only PVCs, DataVolumes and hotpluggable containerDisks can be hotplugged', () => {
    const vmi = vmiWithDisk((s) => (s.volumes = [{ name: 'd', emptyDisk: { capacity: '1Gi' } }]));
    vmi.status = { volumeStatus: [{ name: 'd', target: '', phase: 'Ready', hotplugVolume: {} }] };
    expect(conversionError(vmi)).toMatchObject({ field: 'spec.volumes[0]', reason: 'invalid' });
  });

  it('a hotpluggable containerDisk is never a LUN', () => {
    const vmi = vmiWithDisk((s) => {
      s.volumes = [{ name: 'd', containerDisk: { image: 'x', hotpluggable: true } }];
      s.domain.devices.disks = [{ name: 'd', lun: { bus: 'scsi' } }];
    });
    vmi.status = { volumeStatus: [{ name: 'd', target: '', phase: 'Ready', hotplugVolume: {} }] };
    expect(conversionError(vmi)).toMatchObject({ field: `${disk0}.lun`, reason: 'invalid' });
  });

  it('cache none on storage without O_DIRECT names the disk', () => {
    const err = conversionError(
      vmiWithDisk((s) => (s.domain.devices.disks = [{ name: 'd', cache: 'none' }])),
      {
        directIo: false,
      },
    );
    expect(err.field).toBe(`${disk0}.cache`);
    expect(err.message).toMatch(/does not support direct I\/O/);
  });

  it.each<[string, Patch]>([
    [
      'spec.domain.devices.gpus',
      (s) => (s.domain.devices.gpus = [{ name: 'g', deviceName: 'nvidia.com/x' }]),
    ],
    [
      'spec.domain.devices.hostDevices',
      (s) => (s.domain.devices.hostDevices = [{ name: 'h', deviceName: 'x' }]),
    ],
    [
      'spec.domain.devices.filesystems',
      (s) => (s.domain.devices.filesystems = [{ name: 'f', virtiofs: {} }]),
    ],
    ['spec.domain.devices.tpm.persistent', (s) => (s.domain.devices.tpm = { persistent: true })],
    [
      'spec.domain.firmware.bootloader.efi.persistent',
      (s) => (s.domain.firmware = { bootloader: { efi: { secureBoot: false, persistent: true } } }),
    ],
    ['spec.domain.devices.sound', (s) => (s.domain.devices.sound = { name: 's' })],
    ['spec.domain.cpu.dedicatedCpuPlacement', (s) => (s.domain.cpu = { dedicatedCpuPlacement: true })],
    ['spec.domain.launchSecurity', (s) => (s.domain.launchSecurity = { sev: {} })],
    ['spec.volumes[0].downwardMetrics', (s) => (s.volumes = [{ name: 'd', downwardMetrics: {} }])],
  ])('unsupported: %s', (field, patch) => {
    const err = conversionError(vmiWithDisk(patch));
    expect(err).toMatchObject({ field, reason: 'unsupported', code: 'KV_ERR_INVALID' });
  });

  it.each<[string, Patch]>([
    [
      'spec.domain.devices.gpus',
      (s) =>
        (s.domain.devices.gpus = [
          { name: 'gpu-0', claimName: 'gpu-0', requestName: 'gpu-0' },
          { name: 'g', deviceName: 'nvidia.com/x' },
        ]),
    ],
    [
      'spec.domain.devices.hostDevices',
      (s) =>
        (s.domain.devices.hostDevices = [{ name: 'h', deviceName: 'x', claimName: 'h', requestName: 'h' }]),
    ],
  ])('a device plugin %s entry is refused beside or despite a claim request', (field, patch) => {
    const err = conversionError(vmiWithDisk(patch));
    expect(err).toMatchObject({ field, reason: 'unsupported' });
    expect(err.message).toBe(`${field}: not supported by this launcher yet`);
  });

  it('a DRA GPU is not refused as unsupported: it waits for its allocation', () => {
    const err = conversionError(
      vmiWithDisk(
        (s) => (s.domain.devices.gpus = [{ name: 'gpu-0', claimName: 'gpu-0', requestName: 'gpu-0' }]),
      ),
    );
    expect(err).toMatchObject({ field: 'spec.domain.devices.gpus[0]', reason: 'invalid' });
  });

  it('a switched-off TPM is not a TPM, even a persistent one', () => {
    const domain = toDomain(
      vmiWithDisk((s) => (s.domain.devices.tpm = { enabled: false, persistent: true })),
      testCtx(),
    );
    expect(domain.devices.tpm).toBeUndefined();
  });

  it('says why a persistent TPM is refused', () => {
    const err = conversionError(vmiWithDisk((s) => (s.domain.devices.tpm = { persistent: true })));
    expect(err.message).toMatch(/lost when the launcher Pod ends.*backend-storage claim/);
  });

  it('takes a persistent TPM and EFI state when the Pod mounts the backend-storage claim', () => {
    const vmi = vmiWithDisk((s) => {
      s.domain.devices.tpm = { persistent: true };
      s.domain.firmware = { bootloader: { efi: { persistent: true, secureBoot: false } } };
    });
    const domain = toDomain(vmi, testCtx({ backendStorage: true }));
    expect(domain.devices.tpm).toMatchObject({ model: 'tpm-crb', backend: { persistentState: 'yes' } });
  });
});
