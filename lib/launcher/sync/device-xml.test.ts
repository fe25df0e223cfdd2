import { describe, expect, it } from '@jest/globals';
import type { DeviceStatusInfo } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { domainXml, toDomain, type HostDevice } from '../converter/index.ts';
import { testCtx, testVmi } from '../converter/testing/vmi.ts';
import { diskDeviceXml, hostDeviceXml } from './device-xml.ts';

type Attributes = NonNullable<NonNullable<DeviceStatusInfo['deviceResourceClaimStatus']>['attributes']>;

const allocated = (name: string, attributes: Attributes): DeviceStatusInfo => ({
  name,
  deviceResourceClaimStatus: { name: `dev-${name}`, resourceClaimName: `vm-${name}`, attributes },
});

/** A VMI with a DRA host device of each kind and a disk, and its domain. */
function converted(): { xml: string; hostDevices: HostDevice[]; disk: string } {
  const vmi = testVmi(
    withSpec((s) => {
      s.domain.devices.hostDevices = ['vf', 'm', 'token'].map((n) => ({
        name: n,
        claimName: n,
        requestName: n,
      }));
      s.domain.devices.disks = [{ name: 'root', disk: { bus: 'virtio' } }];
      s.volumes = [{ name: 'root', emptyDisk: { capacity: '1Gi' } }];
    }),
  );
  vmi.status = {
    deviceStatus: {
      hostDeviceStatuses: [
        allocated('vf', { pciAddress: '0000:3b:00.0' }),
        allocated('m', { mDevUUID: '8f2c6a1e-4b3d-4e5f-9a0b-1c2d3e4f5a6b' }),
        allocated('token', { usbAddress: { bus: 1, deviceNumber: 2 } }),
      ],
    },
  };
  const domain = toDomain(vmi, testCtx());
  const [disk] = domain.devices.disks;
  if (disk === undefined) throw new Error('no disk converted');
  return { xml: domainXml(domain), hostDevices: domain.devices.hostDevices, disk: diskDeviceXml(disk) };
}

/** The element as it sits in the domain XML: inside `<domain><devices>`, two levels in. */
const nested = (element: string): string =>
  element
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n');

describe('one device alone', () => {
  const { xml, hostDevices, disk } = converted();

  it.each(['pci', 'mdev', 'usb'] as const)('the %s hostdev is the one the domain XML has', (kind) => {
    const device = hostDevices.find((h) => h.type === kind);
    if (device === undefined) throw new Error(`no ${kind} host device converted`);
    const element = hostDeviceXml(device);
    expect(element).toMatch(new RegExp(`^<hostdev mode="subsystem" type="${kind}"[^]*</hostdev>\\n$`));
    expect(element).toContain(`<alias name="ua-${device.alias.name}"/>`);
    expect(xml).toContain(nested(element));
  });

  it('the disk is the one the domain XML has', () => {
    expect(disk).toMatch(/^<disk [^]*<\/disk>\n$/);
    expect(xml).toContain(nested(disk));
  });
});
