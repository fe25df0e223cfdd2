import { describe, expect, it } from '@jest/globals';
import type { Interface, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import type { LauncherReach } from './phase.ts';
import { computeHandlerStatus, type HandlerStatusInput } from './status.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const NOW = '2026-01-01T00:00:00Z';
const ready: LauncherReach = { initialized: true, unresponsive: false };
/** What a VMI without interfaces, devices or volumes gets on every sync. */
const MIGRATABLE = [
  { type: 'LiveMigratable', status: 'True' },
  { type: 'StorageLiveMigratable', status: 'True' },
];

function vmi(status: VirtualMachineInstance['status'], volumes: string[] = []): VirtualMachineInstance {
  return {
    metadata: { name: 'v', namespace: 'ns', uid: 'u' },
    spec: {
      domain: { devices: {} },
      volumes: volumes.map((name) => ({
        name,
        persistentVolumeClaim: { claimName: name, hotpluggable: true },
      })),
    },
    ...(status !== undefined && { status }),
  };
}

function domain(
  status: LifeCycle,
  reason: string,
  change: (d: DomainJson) => void = () => undefined,
): DomainJson {
  return testDomain(status, reason, (d) => {
    d.Spec = {
      Name: 'ns_v',
      Memory: { Value: 128 * 2 ** 20, Unit: 'b' },
      OS: { Type: { OS: 'hvm', Arch: 'x86_64', Machine: 'pc-q35-7.2' } },
      CPU: { Mode: 'custom', Features: [], Topology: { Sockets: 1, Cores: 2, Threads: 1 } },
      Devices: {
        Channels: [
          { Type: 'unix', Target: { Name: 'org.qemu.guest_agent.0', Type: 'virtio', State: 'disconnected' } },
        ],
        Disks: [
          {
            Device: 'disk',
            Type: 'file',
            Source: { File: '/var/run/kubevirt-private/vmi-disks/root/disk.img' },
            Target: { Bus: 'virtio', Device: 'vda' },
            Driver: { Name: 'qemu', Type: 'raw' },
            Alias: { Name: 'root', UserDefined: true },
          },
        ],
      },
    };
    change(d);
  });
}

const compute = (i: Partial<HandlerStatusInput> & Pick<HandlerStatusInput, 'vmi'>): VirtualMachineInstance =>
  computeHandlerStatus({
    domain: undefined,
    launcher: ready,
    mountedHotplug: new Set(),
    migratable: { networkBindings: {} },
    nowMs: T0,
    ...i,
  });

describe('computeHandlerStatus', () => {
  it('Scheduled with a running domain: Running, with its transition and the guest facts', () => {
    const out = compute({ vmi: vmi({ phase: 'Scheduled' }), domain: domain('Running', 'Booted') });
    expect(out.status).toEqual({
      phase: 'Running',
      phaseTransitionTimestamps: [{ phase: 'Running', phaseTransitionTimestamp: NOW }],
      machine: { type: 'pc-q35-7.2' },
      memory: { guestCurrent: '128Mi' },
      conditions: MIGRATABLE,
      migrationMethod: 'LiveMigration',
    });
  });

  it('carries the guest OS info and the freeze status, and the agent connection as a condition', () => {
    const d = domain('Running', 'Unpaused', (x) => {
      x.Status.OSInfo = {
        ...x.Status.OSInfo,
        Name: 'Debian',
        Id: 'debian',
        Version: '12',
        KernelRelease: '6.1.0',
      };
      x.Status.FSFreezeStatus.Status = 'frozen';
      const agent = x.Spec.Devices.Channels?.[0];
      if (agent !== undefined) agent.Target.State = 'connected';
    });
    const out = compute({ vmi: vmi({ phase: 'Running' }), domain: d });
    expect(out.status?.guestOSInfo).toMatchObject({
      name: 'Debian',
      id: 'debian',
      version: '12',
      kernelRelease: '6.1.0',
    });
    expect(out.status?.fsFreezeStatus).toBe('frozen');
    expect(out.status?.conditions).toEqual([
      ...MIGRATABLE,
      { type: 'AgentConnected', status: 'True', lastProbeTime: NOW },
    ]);
  });

  it('removes AgentConnected when the agent goes away', () => {
    const before = vmi({ phase: 'Running', conditions: [{ type: 'AgentConnected', status: 'True' }] });
    const out = compute({ vmi: before, domain: domain('Running', 'Unpaused') });
    expect(out.status?.conditions).toEqual(MIGRATABLE);
  });

  // KubeVirt's updateFSFreezeStatus: frozen is shown, thawed clears the field, a domain that does not say keeps it.
  it.each([
    ['frozen', undefined, 'frozen'],
    ['thawed', 'frozen', undefined],
    ['', 'frozen', 'frozen'],
    ['', undefined, undefined],
  ] as const)('the domain saying %j turns fsFreezeStatus %j into %j', (said, was, want) => {
    const out = compute({
      vmi: vmi({ phase: 'Running', ...(was !== undefined && { fsFreezeStatus: was }) }),
      domain: domain('Running', 'Unpaused', (x) => {
        x.Status.FSFreezeStatus.Status = said;
      }),
    });
    expect(out.status?.fsFreezeStatus).toBe(want);
  });

  it.each([
    ['User', 'PausedByUser', 'VMI was paused by user'],
    ['IOError', 'PausedIOError', 'VMI was paused, low-level IO error detected'],
  ])('a domain paused for %s: Paused condition %s', (reason, condReason, message) => {
    const out = compute({ vmi: vmi({ phase: 'Running' }), domain: domain('Paused', reason) });
    expect(out.status?.phase).toBe('Running');
    expect(out.status?.conditions).toEqual([
      ...MIGRATABLE,
      {
        type: 'Paused',
        status: 'True',
        reason: condReason,
        message,
        lastProbeTime: NOW,
        lastTransitionTime: NOW,
      },
    ]);
  });

  it('drops Paused once the domain runs again', () => {
    const out = compute({
      vmi: vmi({
        phase: 'Running',
        conditions: [{ type: 'Paused', status: 'True', reason: 'PausedByUser' }],
      }),
      domain: domain('Running', 'Unpaused'),
    });
    expect(out.status?.conditions).toEqual(MIGRATABLE);
  });

  it('a sync failure is the Synchronized condition; success removes it', () => {
    const failed = compute({
      vmi: vmi({ phase: 'Scheduled' }),
      failure: {
        reason: 'Synchronizing with the Domain failed.',
        message: 'spec.domain.cpu.cores: must be >= 1',
      },
    });
    expect(failed.status?.conditions).toEqual([
      ...MIGRATABLE,
      {
        type: 'Synchronized',
        status: 'False',
        reason: 'Synchronizing with the Domain failed.',
        message: 'spec.domain.cpu.cores: must be >= 1',
        lastTransitionTime: NOW,
      },
    ]);
    expect(compute({ vmi: failed, domain: domain('Running', 'Booted') }).status?.conditions).toEqual(
      MIGRATABLE,
    );
  });

  it('hotplug volumes: MountedToPod once mounted, Ready once the domain has the disk, UnMountedFromPod once gone', () => {
    const status = (phase: string): VirtualMachineInstance['status'] => ({
      phase: 'Running',
      volumeStatus: [{ name: 'hp', target: '', phase, hotplugVolume: { attachPodUID: 'a' } }],
    });
    const mounted = compute({ vmi: vmi(status('AttachedToNode'), ['hp']), mountedHotplug: new Set(['hp']) });
    expect(mounted.status?.volumeStatus?.[0]).toMatchObject({
      phase: 'MountedToPod',
      reason: 'VolumeMountedToPod',
      message: 'Volume hp has been mounted in virt-launcher pod',
    });
    const withDisk = domain('Running', 'Booted', (d) => {
      d.Spec.Devices.Disks?.push({
        Device: 'disk',
        Type: 'block',
        Source: { Dev: '/var/run/kubevirt/hotplug-disks/hp' },
        Target: { Bus: 'scsi', Device: 'sda' },
        Driver: { Name: 'qemu', Type: 'raw' },
        Alias: { Name: 'hp', UserDefined: true },
      });
    });
    expect(
      compute({ vmi: vmi(status('MountedToPod'), ['hp']), domain: withDisk }).status?.volumeStatus?.[0],
    ).toMatchObject({
      target: 'sda',
      phase: 'Ready',
      reason: 'VolumeReady',
      message: 'Successfully attach hotplugged volume hp to VM',
    });
    expect(compute({ vmi: vmi(status('Ready'), []) }).status?.volumeStatus?.[0]).toMatchObject({
      phase: 'UnMountedFromPod',
      reason: 'VolumeUnMountedFromPod',
    });
    expect(compute({ vmi: vmi(status('AttachedToNode'), ['hp']) }).status?.volumeStatus?.[0]?.phase).toBe(
      'AttachedToNode',
    );
  });

  it.each([
    ['AttachedToNode', 'AttachedToNode', 'AttachedToNode'],
    ['a forged Ready', 'Ready', 'AttachedToNode'],
    ['a MountedToPod whose mount is gone', 'MountedToPod', 'AttachedToNode'],
    ['Pending', 'Pending', 'Pending'],
  ])('a hotplug volume the node refused, from %s: says why and is not mounted', (_from, was, phase) => {
    const why = 'failed to mount filesystem hotplug volume hp: claim ns/hp is not Bound (phase Pending)';
    const status = {
      phase: 'Running' as const,
      volumeStatus: [{ name: 'hp', target: '', phase: was, hotplugVolume: { attachPodUID: 'a' } }],
    };
    const out = compute({ vmi: vmi(status, ['hp']), refusedHotplug: new Map([['hp', why]]) });
    expect(out.status?.volumeStatus?.[0]).toEqual({
      name: 'hp',
      target: '',
      phase,
      reason: 'HotplugFailed',
      message: why,
      hotplugVolume: { attachPodUID: 'a' },
    });
  });

  it('a refusal does not hide a mount that is there, nor a disk the domain has', () => {
    const status = (phase: string): VirtualMachineInstance['status'] => ({
      phase: 'Running',
      volumeStatus: [{ name: 'hp', target: '', phase, hotplugVolume: { attachPodUID: 'a' } }],
    });
    const refusedHotplug = new Map([['hp', 'x']]);
    const mounted = compute({
      vmi: vmi(status('AttachedToNode'), ['hp']),
      mountedHotplug: new Set(['hp']),
      refusedHotplug,
    });
    expect(mounted.status?.volumeStatus?.[0]?.phase).toBe('MountedToPod');
    const withDisk = domain('Running', 'Booted', (d) => {
      d.Spec.Devices.Disks?.push({
        Device: 'disk',
        Type: 'file',
        Source: { File: '/var/run/kubevirt/hotplug-disks/hp.img' },
        Target: { Bus: 'scsi', Device: 'sda' },
        Driver: { Name: 'qemu', Type: 'raw' },
        Alias: { Name: 'hp', UserDefined: true },
      });
    });
    const inDomain = compute({ vmi: vmi(status('Ready'), ['hp']), domain: withDisk, refusedHotplug });
    expect(inDomain.status?.volumeStatus?.[0]).toMatchObject({ phase: 'Ready', reason: 'VolumeReady' });
  });

  it('a shut-off domain makes the VMI Succeeded; a final VMI is left alone', () => {
    const done = compute({ vmi: vmi({ phase: 'Running' }), domain: domain('Shutoff', 'Shutdown') });
    expect(done.status?.phase).toBe('Succeeded');
    const final = vmi({ phase: 'Failed', reason: 'x' });
    expect(compute({ vmi: final, domain: domain('Running', 'Booted') })).toEqual(final);
  });

  it('does not touch its input', () => {
    const v = vmi({ phase: 'Scheduled' });
    const before = structuredClone(v);
    compute({ vmi: v, domain: domain('Running', 'Booted') });
    expect(v).toEqual(before);
  });
});

describe('computeHandlerStatus: CPU hotplug', () => {
  const topology = { sockets: 1, cores: 2, threads: 1 };
  const hotVmi = (sockets: number): VirtualMachineInstance => {
    const v = vmi({
      phase: 'Running',
      currentCPUTopology: topology,
      conditions: [{ type: 'HotVCPUChange', status: 'True' }],
    });
    v.spec.domain.cpu = { ...topology, sockets, maxSockets: 4 };
    return v;
  };
  const running = domain('Running', 'Unknown');

  it('records the applied topology and drops HotVCPUChange', () => {
    const out = compute({ vmi: hotVmi(2), domain: running, cpuTopology: { ...topology, sockets: 2 } });
    expect(out.status?.currentCPUTopology).toEqual({ sockets: 2, cores: 2, threads: 1 });
    expect(out.status?.conditions?.map((c) => c.type)).not.toContain('HotVCPUChange');
  });

  it('keeps HotVCPUChange and the old topology while the change is not applied', () => {
    const out = compute({ vmi: hotVmi(2), domain: running });
    expect(out.status?.currentCPUTopology).toEqual(topology);
    expect(out.status?.conditions?.map((c) => c.type)).toContain('HotVCPUChange');
  });

  it('drops a HotVCPUChange left when nothing is to change', () => {
    const out = compute({ vmi: hotVmi(1), domain: running });
    expect(out.status?.conditions?.map((c) => c.type)).not.toContain('HotVCPUChange');
  });

  describe('a device the launcher failed to attach in this sync', () => {
    const cause = "cannot open directory '/sys/bus/usb/devices': No such file or directory";
    const failure = (kind: string, name: string): NonNullable<HandlerStatusInput['failure']> => ({
      reason: 'SyncFailed',
      message: `SyncVMI: attaching ${kind} ${name} failed: ${cause}`,
    });

    it('a mounted hotplug volume keeps MountedToPod and says why', () => {
      const v = vmi(
        {
          phase: 'Running',
          volumeStatus: [
            { name: 'hp', target: '', phase: 'MountedToPod', hotplugVolume: { attachPodUID: 'a' } },
            { name: 'other', target: '', phase: 'MountedToPod', hotplugVolume: { attachPodUID: 'a' } },
          ],
        },
        ['hp', 'other'],
      );
      const out = compute({
        vmi: v,
        domain: domain('Running', 'Booted'),
        mountedHotplug: new Set(['hp', 'other']),
        failure: failure('volume', 'hp'),
      });
      expect(out.status?.volumeStatus?.[0]).toMatchObject({
        name: 'hp',
        phase: 'MountedToPod',
        reason: 'HotplugFailed',
        message: `failed to attach volume hp to the domain: ${cause}`,
      });
      expect(out.status?.volumeStatus?.[1]?.reason).toBeUndefined();
    });

    it("a DRA host device's entry says why, and loses it once a sync does not fail", () => {
      const v = vmi({
        phase: 'Running',
        deviceStatus: { hostDeviceStatuses: [{ name: 'usb1', deviceResourceClaimStatus: {} }] },
      });
      const failed = compute({
        vmi: v,
        domain: domain('Running', 'Booted'),
        failure: failure('host device', 'dra-hostdevice-usb1'),
      });
      expect(failed.status?.deviceStatus?.hostDeviceStatuses?.[0]).toMatchObject({
        phase: 'Pending',
        reason: 'HotplugFailed',
        message: `failed to attach host device dra-hostdevice-usb1 to the domain: ${cause}`,
      });
      const next = compute({ vmi: failed, domain: domain('Running', 'Booted') });
      expect(next.status?.deviceStatus?.hostDeviceStatuses?.[0]).toEqual({
        name: 'usb1',
        deviceResourceClaimStatus: {},
        phase: 'Pending',
      });
    });

    it('a failure that names no device touches no status', () => {
      const v = vmi(
        {
          phase: 'Running',
          volumeStatus: [{ name: 'hp', target: '', phase: 'MountedToPod', hotplugVolume: {} }],
        },
        ['hp'],
      );
      const out = compute({
        vmi: v,
        mountedHotplug: new Set(['hp']),
        failure: { reason: 'SyncFailed', message: 'SyncVMI: something else' },
      });
      expect(out.status?.volumeStatus?.[0]?.reason).toBeUndefined();
    });
  });
});

describe('computeHandlerStatus: live migration', () => {
  const refusedBridge = {
    type: 'LiveMigratable',
    status: 'False',
    reason: 'InterfaceNotLiveMigratable',
    message:
      'cannot migrate VMI which does not use masquerade, bridge with kubevirt.io/allow-pod-bridge-network-live-migration VM annotation or a migratable plugin to connect to the pod network',
  };
  const withPodIface = (
    v: VirtualMachineInstance,
    iface: Omit<Interface, 'name'>,
  ): VirtualMachineInstance => {
    v.spec.domain.devices.interfaces = [{ name: 'default', ...iface }];
    v.spec.networks = [{ name: 'default', pod: {} }];
    return v;
  };

  it('a containerDisk makes it a block migration; shared claims a live one', () => {
    const local = vmi({ phase: 'Running' });
    local.spec.volumes = [{ name: 'root', containerDisk: { image: 'img' } }];
    expect(compute({ vmi: local }).status?.migrationMethod).toBe('BlockMigration');
    const shared = vmi({
      phase: 'Running',
      volumeStatus: [
        {
          name: 'data',
          target: '',
          persistentVolumeClaimInfo: { claimName: 'data', accessModes: ['ReadWriteMany'] },
        },
      ],
    });
    shared.spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }];
    const out = compute({ vmi: shared });
    expect(out.status?.migrationMethod).toBe('LiveMigration');
    expect(out.status?.conditions).toEqual(MIGRATABLE);
  });

  it('replaces a LiveMigratable that changed, and moves it last; StorageLiveMigratable keeps its place', () => {
    const before = withPodIface(
      vmi({
        phase: 'Running',
        conditions: [
          { type: 'LiveMigratable', status: 'True' },
          { type: 'StorageLiveMigratable', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
      }),
      { bridge: {} },
    );
    const out = compute({ vmi: before });
    expect(out.status?.conditions).toEqual([
      {
        type: 'StorageLiveMigratable',
        status: 'False',
        reason: 'NotMigratable',
        message: `InterfaceNotLiveMigratable: ${refusedBridge.message}`,
      },
      { type: 'Ready', status: 'True' },
      refusedBridge,
    ]);
    expect(compute({ vmi: out }).status?.conditions).toEqual(out.status?.conditions);
  });

  it('a binding plugin is migratable when the cluster says it migrates', () => {
    const v = withPodIface(vmi({ phase: 'Running' }), { binding: { name: 'mig' } });
    const say = (migration: boolean) =>
      compute({ vmi: v, migratable: { networkBindings: { mig: migration ? { migration } : {} } } }).status
        ?.conditions?.[0];
    expect(say(true)).toEqual({ type: 'LiveMigratable', status: 'True' });
    expect(say(false)).toMatchObject({ status: 'False', reason: 'InterfaceNotLiveMigratable' });
  });

  it('a final VMI is not looked at', () => {
    const final = vmi({ phase: 'Succeeded' });
    final.spec.volumes = [{ name: 'root', containerDisk: { image: 'img' } }];
    expect(compute({ vmi: final }).status).toEqual({ phase: 'Succeeded' });
  });
});
