import { describe, it } from '@jest/globals';
import { GATES } from './context.ts';
import { checkSpecRow, ctxWith, inv, type Patch, type Row } from './testing/fixtures.ts';

const GPUS = 'spec.spec.domain.devices.gpus';

const withFilesystem =
  (volume: Parameters<Patch>[0]['volumes']): Patch =>
  (s) => {
    s.domain.devices.filesystems = [{ name: 'fs', virtiofs: {} }];
    s.volumes = [...(s.volumes ?? []), ...(volume ?? [])];
  };

describe('validateVmiSpec: gated devices, Deckhouse gates', () => {
  it.each<Row>([
    [
      'host devices (HostDevices is on)',
      (s) => (s.domain.devices.hostDevices = [{ name: 'h', deviceName: 'x' }]),
      [],
    ],
    [
      'a VSOCK device',
      (s) => (s.domain.devices.autoattachVSOCK = true),
      [inv('spec.domain.devices.autoattachVSOCK', 'VSOCK feature gate is not enabled in kubevirt-config')],
    ],
    [
      'a LUN with persistent reservation',
      (s) => {
        s.domain.devices.disks?.push({ name: 'lun', lun: { bus: 'scsi', reservation: true } });
        s.volumes?.push({ name: 'lun', persistentVolumeClaim: { claimName: 'c' } });
      },
      [
        inv(
          'spec.domain.devices.disks.luns.reservation',
          'PersistentReservation feature gate is not enabled in kubevirt-config',
        ),
      ],
    ],
    [
      'the downwardMetrics device',
      (s) => (s.domain.devices.downwardMetrics = {}),
      [
        inv(
          'spec.domain.devices.downwardMetrics',
          'downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled',
        ),
      ],
    ],
    [
      'virtiofs on a configMap',
      withFilesystem([{ name: 'fs', configMap: { name: 'cm' } }]),
      [
        inv(
          'spec.domain.devices.filesystems',
          'virtiofs is not allowed: virtiofs feature gate is not enabled for config volumes',
        ),
      ],
    ],
    [
      'virtiofs on a PVC',
      withFilesystem([{ name: 'fs', persistentVolumeClaim: { claimName: 'c' } }]),
      [
        inv(
          'spec.domain.devices.filesystems',
          'virtiofs is not allowed: virtiofs feature gate is not enabled for PVC',
        ),
      ],
    ],
    [
      'a DRA GPU whose claim is not in resourceClaims',
      (s) => (s.domain.devices.gpus = [{ name: 'g', claimName: 'gpu', requestName: 'r' }]),
      [
        inv(
          'spec.resourceClaims',
          'vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus',
        ),
      ],
    ],
    [
      'a DRA GPU with its claim',
      (s) => {
        s.domain.devices.gpus = [{ name: 'g', claimName: 'gpu', requestName: 'r' }];
        s.resourceClaims = [{ name: 'gpu', resourceClaimTemplateName: 't' }];
      },
      [],
    ],
    [
      'a GPU with neither deviceName nor claim',
      (s) => (s.domain.devices.gpus = [{ name: 'g' }]),
      [inv(GPUS, 'vmi.spec.domain.devices.gpus contains GPUs without deviceName')],
    ],
    [
      'a GPU with deviceName and a claim',
      (s) => (s.domain.devices.gpus = [{ name: 'g', deviceName: 'nvidia/a', claimName: 'c' }]),
      [inv(GPUS, 'vmi.spec.domain.devices.gpus contains GPUs with both deviceName and claimRequest')],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it.each<Row>([
    [
      'host devices without HostDevices',
      (s) => (s.domain.devices.hostDevices = []),
      [inv('spec.HostDevices', 'Host Devices feature gate is not enabled in kubevirt-config')],
    ],
    [
      'a DRA GPU without GPUsWithDRA',
      (s) => {
        s.domain.devices.gpus = [{ name: 'g', claimName: 'gpu', requestName: 'r' }];
        s.resourceClaims = [{ name: 'gpu' }];
      },
      [inv(GPUS, 'vmi.spec.domain.devices.gpus contains DRA enabled GPUs but feature gate is not enabled')],
    ],
  ])('%s (no gates)', (_name, patch, expected) => {
    checkSpecRow(patch, expected, ctxWith([]));
  });

  it.each<Row>([
    ['the downwardMetrics device', (s) => (s.domain.devices.downwardMetrics = {}), []],
    ['VSOCK', (s) => (s.domain.devices.autoattachVSOCK = true), []],
    ['virtiofs on a configMap', withFilesystem([{ name: 'fs', configMap: { name: 'cm' } }]), []],
    ['virtiofs on a PVC', withFilesystem([{ name: 'fs', persistentVolumeClaim: { claimName: 'c' } }]), []],
  ])('%s with its gate', (_name, patch, expected) => {
    checkSpecRow(
      patch,
      expected,
      ctxWith([
        GATES.DOWNWARD_METRICS,
        GATES.VSOCK,
        GATES.VIRTIOFS_CONFIG_VOLUMES,
        GATES.VIRTIOFS_STORAGE_VOLUMES,
      ]),
    );
  });
});
