import { describe, expect, it } from '@jest/globals';
import type { Interface, VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  newVmi,
  withCpu,
  withDisk,
  withInterface,
  withSpec,
  withVolume,
  type SpecOption,
} from '../../kubevirt/testing/builders.ts';
import { draDevice, withHostDevice } from '../../kubevirt/testing/resource-claims.ts';
import { migratability, type MigratableFacts } from './migratable.ts';

type Status = NonNullable<VirtualMachineInstance['status']>;
type Option = (v: VirtualMachineInstance) => void;

const BRIDGE_ANNOTATION = 'kubevirt.io/allow-pod-bridge-network-live-migration';
const RWX = ['ReadWriteMany'];
const RWO = ['ReadWriteOnce'];
const FACTS: MigratableFacts = {
  networkBindings: { passt: {}, sriovish: { domainAttachmentType: 'tap' }, mig: { migration: true } },
};
const INTERFACE_MESSAGE = `cannot migrate VMI which does not use masquerade, bridge with ${BRIDGE_ANNOTATION} VM annotation or a migratable plugin to connect to the pod network`;
const notShared = (claim: string): string =>
  `cannot migrate VMI: PVC ${claim} is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`;

const spec =
  (...opts: SpecOption[]): Option =>
  (v) => {
    for (const o of opts) o(v.spec);
  };
const status =
  (change: (s: Status) => void): Option =>
  (v) => {
    change((v.status ??= {}));
  };
const annotated: Option = (v) => {
  v.metadata.annotations = { [BRIDGE_ANNOTATION]: '' };
};
/** A PVC volume (a DataVolume with `dv`) whose status reports these access modes (none: no claim info). */
const pvc =
  (name: string, modes?: string[], dv = false): Option =>
  (v) => {
    spec(
      withVolume(dv ? { name, dataVolume: { name } } : { name, persistentVolumeClaim: { claimName: name } }),
    )(v);
    if (modes === undefined) return;
    status((s) => {
      (s.volumeStatus ??= []).push({
        name,
        target: '',
        persistentVolumeClaimInfo: { claimName: name, accessModes: modes },
      });
    })(v);
  };
const containerDisk = (name: string): Option => spec(withVolume({ name, containerDisk: { image: 'img' } }));
const podIface = (iface: Interface): Option => spec(withInterface(iface, { name: iface.name, pod: {} }));

function vmi(...opts: Option[]): VirtualMachineInstance {
  const v = newVmi();
  v.status = { nodeName: 'node1' };
  for (const o of opts) o(v);
  return v;
}

describe('migratability: LiveMigratable', () => {
  it.each<[string, Option[], string | undefined, string?]>([
    ['nothing local, no interface: migratable', [], undefined],
    ['masquerade on the Pod network', [podIface({ name: 'default', masquerade: {} })], undefined],
    [
      'bridge on the Pod network',
      [podIface({ name: 'default', bridge: {} })],
      'InterfaceNotLiveMigratable',
      INTERFACE_MESSAGE,
    ],
    [
      'bridge on the Pod network with the annotation',
      [podIface({ name: 'default', bridge: {} }), annotated],
      undefined,
    ],
    [
      'the annotation does not help a plugin without migration',
      [podIface({ name: 'default', binding: { name: 'sriovish' } }), annotated],
      'InterfaceNotLiveMigratable',
    ],
    ['a binding plugin with migration', [podIface({ name: 'default', binding: { name: 'mig' } })], undefined],
    [
      'a binding plugin without migration',
      [podIface({ name: 'default', binding: { name: 'passt' } })],
      'InterfaceNotLiveMigratable',
    ],
    [
      'a binding plugin the cluster does not configure',
      [podIface({ name: 'default', binding: { name: 'nope' } })],
      'InterfaceNotLiveMigratable',
    ],
    [
      'bridge on a Multus network only: no Pod network to hold it against',
      [spec(withInterface({ name: 'm', bridge: {} }, { name: 'm', multus: { networkName: 'n' } }))],
      undefined,
    ],
    [
      'a generic host device',
      [spec(withHostDevice({ name: 'h', deviceName: 'vendor/dev' }))],
      'HostDeviceNotLiveMigratable',
      'VMI uses a PCI host devices',
    ],
    ['a DRA host device', [spec(withHostDevice(draDevice('usb')))], 'HostDeviceNotLiveMigratable'],
    [
      'a GPU',
      [spec(withSpec((s) => (s.domain.devices.gpus = [{ name: 'g', deviceName: 'nvidia/x' }])))],
      'HostDeviceNotLiveMigratable',
    ],
    [
      'SEV',
      [spec(withSpec((s) => (s.domain.launchSecurity = { sev: {} })))],
      'SEVNotLiveMigratable',
      'VMI uses SEV',
    ],
    [
      'Secure Execution (launch security on s390x)',
      [spec(withSpec((s) => ((s.domain.launchSecurity = {}), (s.architecture = 's390x'))))],
      'SecureExecutionNotLiveMigratable',
      'VMI uses Secure Execution',
    ],
    [
      'a LUN with SCSI persistent reservation',
      [spec(withDisk({ name: 'l', lun: { reservation: true } }))],
      'PersistentReservationNotLiveMigratable',
      'VMI uses SCSI persitent reservation',
    ],
    [
      'Hyper-V reenlightenment without a TSC frequency',
      [spec(withSpec((s) => (s.domain.features = { hyperv: { reenlightenment: {} } })))],
      'NoTSCFrequencyNotLiveMigratable',
      'HyperV Reenlightenment VMIs cannot migrate when TSC Frequency is not exposed on the cluster: guest timers might be inconsistent',
    ],
    [
      'Hyper-V reenlightenment with the TSC frequency in the topology hints',
      [
        spec(withSpec((s) => (s.domain.features = { hyperv: { reenlightenment: {} } }))),
        status((s) => (s.topologyHints = { tscFrequency: 2_000_000_000 })),
      ],
      undefined,
    ],
    [
      'Hyper-V reenlightenment switched off',
      [spec(withSpec((s) => (s.domain.features = { hyperv: { reenlightenment: { enabled: false } } })))],
      undefined,
    ],
    [
      'Hyper-V passthrough',
      [spec(withSpec((s) => (s.domain.features = { hypervPassthrough: {} })))],
      'HypervPassthroughNotLiveMigratable',
      'VMI uses hyperv passthrough',
    ],
    ['a RWX PVC', [pvc('data', RWX)], undefined],
    ['a RWO PVC', [pvc('data', RWO)], 'DisksNotLiveMigratable', notShared('data')],
    ['a RWO DataVolume', [pvc('dv', RWO, true)], 'DisksNotLiveMigratable', notShared('dv')],
    [
      'a PVC without claim info',
      [pvc('data')],
      'DisksNotLiveMigratable',
      'cannot migrate VMI: Unable to determine if PVC data is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)',
    ],
    [
      'a RWO PVC a volume migration copies',
      [pvc('data', RWO), status((s) => (s.migratedVolumes = [{ volumeName: 'data' }]))],
      undefined,
    ],
    [
      'a host disk that is not shared',
      [spec(withVolume({ name: 'h', hostDisk: { path: '/d', type: 'Disk' } }))],
      'DisksNotLiveMigratable',
      'cannot migrate VMI with non-shared HostDisk',
    ],
    [
      'a shared host disk',
      [spec(withVolume({ name: 'h', hostDisk: { path: '/d', type: 'Disk', shared: true } }))],
      undefined,
    ],
    ['a containerDisk: copied, still migratable', [containerDisk('root')], undefined],
  ])('%s', (...[, opts, reason, message]) => {
    // A rest parameter: rows without a message must not make the last one Jest's done callback.
    const { condition } = migratability(vmi(...opts), FACTS);
    if (reason === undefined) {
      expect(condition).toEqual({ type: 'LiveMigratable', status: 'True' });
      return;
    }
    expect(condition).toMatchObject({ type: 'LiveMigratable', status: 'False', reason });
    if (message !== undefined) expect(condition.message).toBe(message);
  });

  it('the first failing check wins, and the disks come last whatever their place', () => {
    const v = vmi(
      pvc('data', RWO),
      podIface({ name: 'default', bridge: {} }),
      spec(withHostDevice(draDevice('usb'))),
    );
    expect(migratability(v, FACTS).condition.reason).toBe('InterfaceNotLiveMigratable');
    const disksAndDevice = vmi(pvc('data', RWO), spec(withHostDevice(draDevice('usb'))));
    expect(migratability(disksAndDevice, FACTS).condition.reason).toBe('HostDeviceNotLiveMigratable');
  });

  it('host-model is held against the node only when its host model is known to be missing', () => {
    const v = vmi(spec(withCpu({ model: 'host-model' })));
    expect(migratability(v, { ...FACTS, hostCpuModel: 'Skylake-Client-IBRS' }).condition.status).toBe('True');
    expect(migratability(v, { networkBindings: {} }).condition.status).toBe('True');
    expect(migratability(v, { ...FACTS, hostCpuModel: '' }).condition).toEqual({
      type: 'LiveMigratable',
      status: 'False',
      reason: 'CPUModeLiveMigratable',
      message: 'the node "node1" does not allow migration with host-model',
    });
  });
});

describe('migratability: migration method', () => {
  it.each<[string, boolean, Option[]]>([
    ['nothing but shared claims', false, [pvc('a', RWX), pvc('b', RWX, true)]],
    ['a containerDisk', true, [containerDisk('root')]],
    ['an emptyDisk', true, [spec(withVolume({ name: 'scratch', emptyDisk: { capacity: '1Gi' } }))]],
    [
      'a cloud-init disk',
      true,
      [spec(withVolume({ name: 'ci', cloudInitNoCloud: { userData: '#cloud-config' } }))],
    ],
    [
      'a containerDisk behind a read-only CD-ROM',
      false,
      [containerDisk('iso'), spec(withDisk({ name: 'iso', cdrom: {} }))],
    ],
    [
      'a containerDisk behind a writable CD-ROM',
      true,
      [containerDisk('iso'), spec(withDisk({ name: 'iso', cdrom: { readonly: false } }))],
    ],
    [
      'a volume shared with virtiofs',
      false,
      [
        spec(withVolume({ name: 'fs', configMap: { name: 'c' } })),
        spec(withSpec((s) => (s.domain.devices.filesystems = [{ name: 'fs', virtiofs: {} }]))),
      ],
    ],
    [
      'a RWO claim a volume migration copies',
      true,
      [pvc('data', RWO), status((s) => (s.migratedVolumes = [{ volumeName: 'data' }]))],
    ],
    ['a RWO claim (refused, and block)', true, [pvc('data', RWO)]],
  ])('%s: block migration %s', (_name, block, opts) => {
    expect(migratability(vmi(...opts), FACTS).blockMigration).toBe(block);
  });
});

describe('migratability: StorageLiveMigratable', () => {
  it('lists every failing check but the disks and Secure Execution', () => {
    const v = vmi(
      pvc('data', RWO),
      podIface({ name: 'default', bridge: {} }),
      spec(withHostDevice(draDevice('usb'))),
      spec(withSpec((s) => ((s.domain.launchSecurity = {}), (s.architecture = 's390x')))),
    );
    expect(migratability(v, FACTS).storageCondition).toEqual({
      type: 'StorageLiveMigratable',
      status: 'False',
      reason: 'NotMigratable',
      message: `InterfaceNotLiveMigratable: ${INTERFACE_MESSAGE}, HostDeviceNotLiveMigratable: VMI uses a PCI host devices`,
    });
  });

  it('is True when only the disks stop a live migration', () => {
    expect(migratability(vmi(pvc('data', RWO)), FACTS).storageCondition).toEqual({
      type: 'StorageLiveMigratable',
      status: 'True',
    });
  });
});
