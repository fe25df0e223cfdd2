import { describe, expect, it } from '@jest/globals';
import type { DeviceStatusInfo, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson, HostDeviceJson } from '../../rpc/index.ts';
import { withDevicePhases } from './device-phase.ts';

type Status = NonNullable<VirtualMachineInstance['status']>;

const usb = (extra: Partial<DeviceStatusInfo> = {}): DeviceStatusInfo => ({
  name: 'usb1',
  deviceResourceClaimStatus: {
    resourceClaimName: 'c',
    name: 'usb-001-002',
    attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
  },
  ...extra,
});
const unallocated: DeviceStatusInfo = { name: 'usb1', deviceResourceClaimStatus: { resourceClaimName: 'c' } };

function domain(...hostdevs: HostDeviceJson[]): DomainJson {
  return { Spec: { Name: 'd', Devices: { HostDevices: hostdevs } } } as unknown as DomainJson;
}
const usbHostdev = (alias: string): HostDeviceJson => ({
  Type: 'usb',
  Alias: { Name: alias, UserDefined: true },
  Address: { Type: 'usb', Bus: '0', Port: '1' },
});

function run(statuses: DeviceStatusInfo[], d: DomainJson | undefined, gpus = false): DeviceStatusInfo[] {
  const status: Status = {
    deviceStatus: gpus ? { gpuStatuses: statuses } : { hostDeviceStatuses: statuses },
  };
  withDevicePhases(status, d);
  return (gpus ? status.deviceStatus?.gpuStatuses : status.deviceStatus?.hostDeviceStatuses) ?? [];
}

describe('withDevicePhases', () => {
  it.each<[string, DeviceStatusInfo[], DomainJson | undefined, Partial<DeviceStatusInfo>]>([
    [
      'a USB device in the domain: Ready at its guest address',
      [usb()],
      domain(usbHostdev('dra-hostdevice-usb1')),
      { phase: 'Ready', address: '0:1' },
    ],
    [
      'a PCI device in the domain: Ready, no address',
      [usb()],
      domain({ Type: 'pci', Alias: { Name: 'dra-hostdevice-usb1', UserDefined: true } }),
      { phase: 'Ready' },
    ],
    [
      'attachable, not in the domain (yet or any more): AttachedToPod, the old address gone',
      [usb({ phase: 'Ready', address: '0:1' })],
      domain(usbHostdev('dra-hostdevice-other')),
      { phase: 'AttachedToPod' },
    ],
    ['not allocated yet: Pending', [unallocated], domain(), { phase: 'Pending' }],
    [
      'no domain report: left as it was',
      [usb({ phase: 'Ready', address: '0:1' })],
      undefined,
      { phase: 'Ready', address: '0:1' },
    ],
  ])('%s', (_n, statuses, d, want) => {
    const [out] = run(statuses, d);
    expect(out).toEqual({ ...statuses[0], phase: undefined, address: undefined, ...want });
  });

  it('a GPU is found by its own alias prefix, not the host devices one', () => {
    const gpu = { ...usb(), name: 'gpu1' };
    expect(run([gpu], domain(usbHostdev('dra-gpu-gpu1')), true)[0]?.phase).toBe('Ready');
    expect(run([gpu], domain(usbHostdev('dra-hostdevice-gpu1')), true)[0]?.phase).toBe('AttachedToPod');
  });

  it('no deviceStatus: none is made', () => {
    const status: Status = {};
    withDevicePhases(status, domain());
    expect(status).toEqual({});
  });
});
