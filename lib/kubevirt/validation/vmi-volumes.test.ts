import { describe, it } from '@jest/globals';
import type { Volume } from '../v1/volume.ts';
import { GATES } from './context.ts';
import { cause, checkSpecRow, ctxWith, inv, raw, req, type Row, type Spec } from './testing/fixtures.ts';

const V = 'spec.volumes';

/** A second volume `data` (with its disk), built from the given sources. */
const withData =
  (volume: Omit<Volume, 'name'>): ((s: Spec) => void) =>
  (s) => {
    (s.volumes ??= []).push({ name: 'data', ...volume });
    (s.domain.devices.disks ??= []).push({ name: 'data', disk: { bus: 'virtio' } });
  };

const cloudInit = (src: NonNullable<Volume['cloudInitNoCloud']>): ((s: Spec) => void) =>
  withData({ cloudInitNoCloud: src });

const NC = `${V}[1].cloudInitNoCloud`;

describe('validateVmiSpec: volumes', () => {
  it.each<Row>([
    ['a cloud-init volume with user data', cloudInit({ userData: '#cloud-config\n' }), []],
    [
      'two volumes of one name',
      (s) => s.volumes?.push({ name: 'root', emptyDisk: { capacity: '1Gi' } }),
      [inv(`${V}[1].name`, `${V}[1] and ${V}[0] must not have the same Name.`)],
    ],
    ['no source', withData({}), [inv(`${V}[1]`, `${V}[1] must have exactly one source type set`)]],
    [
      'two sources',
      withData({ emptyDisk: { capacity: '1Gi' }, persistentVolumeClaim: { claimName: 'c' } }),
      [inv(`${V}[1]`, `${V}[1] must have exactly one source type set`)],
    ],
    [
      'a DataVolume without a name',
      withData({ dataVolume: { name: '' } }),
      [req(`${V}[1].name`, "DataVolume 'name' must be set")],
    ],
    [
      'cloud-init with two user-data sources',
      cloudInit({ userData: 'a', userDataBase64: 'YQ==' }),
      [inv(NC, `${NC} must have only one userdatasource set.`)],
    ],
    [
      'cloud-init user data that is no base64',
      cloudInit({ userDataBase64: 'not base64!' }),
      [
        inv(
          `${NC}.userDataBase64`,
          `${NC}.userDataBase64.cloudInitNoCloud.userDataBase64 is not a valid base64 value.`,
        ),
      ],
    ],
    [
      'cloud-init user data over 2048 bytes',
      cloudInit({ userData: 'x'.repeat(2049) }),
      [inv(NC, `${NC} userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data.`)],
    ],
    [
      'cloud-init with two network-data sources',
      cloudInit({ networkData: 'a', networkDataSecretRef: { name: 's' } }),
      [inv(NC, `${NC} must have only one networkdata source set.`)],
    ],
    [
      'cloud-init network data over 2048 bytes',
      cloudInit({ networkDataBase64: Buffer.from('n'.repeat(2049)).toString('base64') }),
      [
        inv(
          NC,
          `${NC} networkdata exceeds 2048 byte limit. Should use NetworkDataSecretRef for larger data.`,
        ),
      ],
    ],
    [
      'cloud-init without data',
      cloudInit({}),
      [inv(NC, `${NC} must have at least one userdatasource or one networkdatasource set.`)],
    ],
    [
      'a downwardMetrics volume without the gate',
      withData({ downwardMetrics: {} }),
      [inv(`${V}[1]`, 'downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled.')],
    ],
    [
      'a hostDisk without the gate, path or valid type',
      withData({ hostDisk: { path: '', type: raw('Block') } }),
      [
        inv(`${V}[1]`, 'HostDisk feature gate is not enabled'),
        cause(
          'FieldValueNotFound',
          `${V}[1].hostDisk.path`,
          `${V}[1].hostDisk.path is required for hostDisk volume`,
        ),
        inv(
          `${V}[1].hostDisk.type`,
          `${V}[1].hostDisk.type has invalid value 'Block', allowed are 'Disk' or 'DiskOrCreate'`,
        ),
      ],
    ],
    [
      'a configMap, secret and serviceAccount without names',
      (s) => {
        for (const [name, src] of [
          ['cm', { configMap: {} }],
          ['sec', { secret: {} }],
          ['sa', { serviceAccount: {} }],
        ] as const) {
          s.volumes?.push({ name, ...src });
          s.domain.devices.disks?.push({ name, disk: { bus: 'virtio' } });
        }
      },
      [
        inv(`${V}[1].configMap.name`, `${V}[1].configMap.name is a required field`),
        inv(`${V}[2].secret.secretName`, `${V}[2].secret.secretName is a required field`),
        inv(
          `${V}[3].serviceAccount.serviceAccountName`,
          `${V}[3].serviceAccount.serviceAccountName is a required field`,
        ),
      ],
    ],
    [
      'two serviceAccount and two memoryDump volumes',
      (s) => {
        s.volumes?.push(
          { name: 'sa1', serviceAccount: { serviceAccountName: 'a' } },
          { name: 'sa2', serviceAccount: { serviceAccountName: 'b' } },
          { name: 'd1', memoryDump: { claimName: 'c1' } },
          { name: 'd2', memoryDump: { claimName: 'c2' } },
        );
        s.domain.devices.disks?.push({ name: 'sa1', disk: {} }, { name: 'sa2', disk: {} });
      },
      [
        inv(V, `${V} must have max one serviceAccount volume set`),
        inv(V, `${V} must have max one memory dump volume set`),
      ],
    ],
    [
      'a containerDisk path at the root',
      (s) => {
        const cd = s.volumes?.[0]?.containerDisk;
        if (cd !== undefined) cd.path = '/';
      },
      [inv(`${V}[0].containerDisk`, `${V}[0].containerDisk must not point to root`)],
    ],
    [
      'a relative containerDisk path',
      (s) => {
        const cd = s.volumes?.[0]?.containerDisk;
        if (cd !== undefined) cd.path = 'disk/../img.qcow2';
      },
      [
        inv(
          `${V}[0].containerDisk`,
          `${V}[0].containerDisk must be an absolute path to a file without relative components`,
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it.each<Row>([
    [
      'a Disk hostDisk with a capacity',
      withData({ hostDisk: { path: '/data/disk.img', type: 'Disk', capacity: '1Gi' } }),
      [
        inv(
          `${V}[1].hostDisk.capacity`,
          `${V}[1].hostDisk.capacity is allowed to pass only with ${V}[1].hostDisk.type equal to 'DiskOrCreate'`,
        ),
      ],
    ],
    [
      'a DiskOrCreate hostDisk with a capacity',
      withData({ hostDisk: { path: '/d.img', type: 'DiskOrCreate', capacity: '1Gi' } }),
      [],
    ],
    [
      'two downwardMetrics volumes',
      (s) => {
        s.volumes?.push({ name: 'm1', downwardMetrics: {} }, { name: 'm2', downwardMetrics: {} });
        s.domain.devices.disks?.push({ name: 'm1', disk: {} }, { name: 'm2', disk: {} });
      },
      [inv(V, `${V} must have max one downwardMetric volume set`)],
    ],
  ])('%s (HostDisk and DownwardMetrics on)', (_name, patch, expected) => {
    checkSpecRow(patch, expected, ctxWith([GATES.HOST_DISK, GATES.DOWNWARD_METRICS]));
  });
});
