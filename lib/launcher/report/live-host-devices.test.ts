import { describe, expect, it } from '@jest/globals';
import { liveHostDevices } from './live-host-devices.ts';

const xml = (devices: string): string =>
  `<domain type='qemu'><name>d</name><devices>${devices}</devices></domain>`;

describe('liveHostDevices', () => {
  it('a plugged USB hostdev: its user alias and the guest bus and port libvirt gave it', () => {
    const devs = liveHostDevices(
      xml(`<disk type='file'/><hostdev mode='subsystem' type='usb' managed='no'>
        <source><address bus='1' device='2'/></source>
        <alias name='ua-dra-hostdevice-usb1'/><address type='usb' bus='0' port='1'/></hostdev>`),
    );
    expect(devs).toEqual([
      {
        Type: 'usb',
        Alias: { Name: 'dra-hostdevice-usb1', UserDefined: true },
        Address: { Type: 'usb', Bus: '0', Port: '1' },
      },
    ]);
  });

  it("a PCI hostdev's guest PCI address; libvirt's own alias is not user defined", () => {
    const devs = liveHostDevices(
      xml(`<hostdev mode='subsystem' type='pci'><alias name='hostdev0'/>
        <address type='pci' domain='0x0000' bus='0x07' slot='0x00' function='0x0'/></hostdev>`),
    );
    expect(devs).toEqual([
      {
        Type: 'pci',
        Alias: { Name: 'hostdev0', UserDefined: false },
        Address: { Type: 'pci', Domain: '0x0000', Bus: '0x07', Slot: '0x00', Function: '0x0' },
      },
    ]);
  });

  it('none: an empty list', () => {
    expect(liveHostDevices(xml(`<disk type='file'/>`))).toEqual([]);
  });
});
