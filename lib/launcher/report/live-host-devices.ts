/**
 * The host devices of the live domain XML as the domain report carries them (KubeVirt's api.HostDevice: type,
 * alias, guest address): libvirt gives a USB hostdev its guest bus and port only when it is plugged in, so this
 * is read from the domain, not from the converter's spec. The handler turns it into the fork's device phase and
 * address (handler/vmi/device-phase.ts). Pure.
 */
import type { HostDeviceJson } from '../../rpc/index.ts';
import { child, children, parseXml } from '../xml-read.ts';

const USER_ALIAS = 'ua-';

type Address = NonNullable<HostDeviceJson['Address']>;

const ADDRESS_ATTRS: readonly [attr: string, field: Exclude<keyof Address, 'Type'>][] = [
  ['bus', 'Bus'],
  ['port', 'Port'],
  ['domain', 'Domain'],
  ['slot', 'Slot'],
  ['function', 'Function'],
];

export function liveHostDevices(xml: string): HostDeviceJson[] {
  return children(child(parseXml(xml), 'devices'), 'hostdev').map((h) => {
    const alias = child(h, 'alias')?.attrs['name'];
    const addr = child(h, 'address');
    const out: HostDeviceJson = { Type: h.attrs['type'] ?? '' };
    if (alias !== undefined) {
      const userDefined = alias.startsWith(USER_ALIAS);
      out.Alias = { Name: userDefined ? alias.slice(USER_ALIAS.length) : alias, UserDefined: userDefined };
    }
    if (addr !== undefined) {
      const address: Address = { Type: addr.attrs['type'] ?? '' };
      for (const [attr, field] of ADDRESS_ATTRS) {
        const v = addr.attrs[attr];
        if (v !== undefined) address[field] = v;
      }
      out.Address = address;
    }
    return out;
  });
}
