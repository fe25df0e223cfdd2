/**
 * The MACs libvirt gave the domain's interfaces: an interface the VMI names no macAddress for gets one when the
 * domain is defined (52:54:00:…), and that is the MAC the guest's DHCP answers and the status reports. Pure.
 */
import { child, children, parseXml } from '../xml-read.ts';
import type { DomainSpec } from '../converter/index.ts';

/** The MAC of each interface of the defined domain XML, by its alias (`ua-<name>`). */
export function definedMacs(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const iface of children(child(parseXml(xml), 'devices'), 'interface')) {
    const alias = child(iface, 'alias')?.attrs['name'];
    const mac = child(iface, 'mac')?.attrs['address'];
    if (alias !== undefined && mac !== undefined) out.set(alias, mac.toLowerCase());
  }
  return out;
}

/** The spec with the MACs libvirt chose filled in where the VMI named none. */
export function withDefinedMacs(spec: DomainSpec, macs: ReadonlyMap<string, string>): DomainSpec {
  if (!spec.devices.interfaces.some((i) => i.mac === undefined)) return spec;
  const interfaces = spec.devices.interfaces.map((i) => {
    const mac = i.mac ?? macs.get(`ua-${i.alias.name}`);
    return mac === undefined ? i : { ...i, mac };
  });
  return { ...spec, devices: { ...spec.devices, interfaces } };
}
