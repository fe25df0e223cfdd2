/**
 * The fields of each interface (KubeVirt pkg/network/admitter/netiface.go validateInterfacesFields): name
 * characters, model, MAC and PCI addresses, forwarded ports on the pod network, DHCP options. The DHCP
 * private-option causes point at the spec path itself, as KubeVirt's do.
 */
import { isIPv4 } from 'node:net';
import type { Interface, Network } from '../v1/network.ts';
import { child, duplicate, invalid, item, notSupported, required, type Causes } from './causes.ts';
import { isValidPortName } from './dns.ts';
import type { SpecRule } from './rule.ts';

const NAME = /^[A-Za-z0-9-_]+$/;
const PCI_ADDRESS = /^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7]{1})$/;
const MODELS: readonly string[] = ['e1000', 'e1000e', 'igb', 'ne2k_pci', 'pcnet', 'rtl8139', 'virtio'];

/** Bytes in a MAC address Go's net.ParseMAC reads (6, 8 or 20), or undefined when it refuses it. */
function macBytes(s: string): number | undefined {
  if (s.length < 14) return undefined;
  const sep = s[2];
  if (sep === ':' || sep === '-') {
    const n = (s.length + 1) / 3;
    const ok = new RegExp(`^[0-9a-fA-F]{2}(${sep}[0-9a-fA-F]{2})*$`).test(s);
    return ok && [6, 8, 20].includes(n) ? n : undefined;
  }
  if (s[4] === '.') {
    const n = (2 * (s.length + 1)) / 5;
    return /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/.test(s) && [6, 8, 20].includes(n) ? n : undefined;
  }
  return undefined;
}

/** Go's net.ParseIP(ip).To4() != nil: dotted IPv4, also as an IPv4-mapped IPv6 address. */
function isIPv4Like(ip: string): boolean {
  const mapped = /^::ffff:(.+)$/i.exec(ip);
  return isIPv4(mapped?.[1] ?? ip);
}

/** link.ValidateMacAddress: why the address is refused, or undefined. */
function macProblem(mac: string): string | undefined {
  if (mac === '') return undefined;
  const n = macBytes(mac);
  if (n === undefined) return `malformed MAC address (${mac})`;
  return n > 6 ? `too long MAC address (${mac})` : undefined;
}

function addressCauses(iface: Interface, at: string): Causes {
  const name = child(at, 'name');
  const causes: Causes = [];
  if (!NAME.test(iface.name)) {
    causes.push(
      invalid(
        name,
        'Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)',
      ),
    );
  }
  const model = iface.model ?? '';
  if (model !== '' && !MODELS.includes(model)) {
    causes.push(
      notSupported(child(at, 'model'), `interface ${name} uses model ${model} that is not supported.`),
    );
  }
  const mac = macProblem(iface.macAddress ?? '');
  if (mac !== undefined) causes.push(invalid(child(at, 'macAddress'), `interface ${name} has ${mac}.`));
  const pci = iface.pciAddress ?? '';
  if (pci !== '' && !PCI_ADDRESS.test(pci)) {
    causes.push(invalid(child(at, 'pciAddress'), `interface ${name} has malformed PCI address (${pci}).`));
  }
  return causes;
}

function portCauses(iface: Interface, at: string, net: Network | undefined): Causes {
  const ports = iface.ports;
  if (net?.pod === undefined || ports === undefined) return [];
  const seen = new Set<string>();
  const named = ports.flatMap((p, j) => {
    const name = p.name ?? '';
    if (name === '') return [];
    const f = child(item(at, ['ports'], j), 'name');
    const causes: Causes = [];
    if (seen.has(name)) causes.push(duplicate(f, `Duplicate name of the port: ${name}`));
    if (!isValidPortName(name)) causes.push(invalid(f, `Invalid name of the port: ${name}`));
    seen.add(name);
    return causes;
  });
  const each = ports.flatMap((p, j) => {
    const f = item(at, ['ports'], j);
    const protocol = p.protocol ?? '';
    return [
      ...(p.port === 0 ? [required(f, 'Port field is mandatory.')] : []),
      ...(p.port < 0 || p.port > 65536 ? [invalid(f, 'Port field must be in range 0 < x < 65536.')] : []),
      ...(protocol !== '' && protocol !== 'TCP' && protocol !== 'UDP'
        ? [invalid(child(f, 'protocol'), 'Unknown protocol, only TCP or UDP allowed')]
        : []),
    ];
  });
  return [...named, ...each];
}

function dhcpCauses(iface: Interface, at: string, path: string): Causes {
  const dhcp = iface.dhcpOptions;
  if (dhcp === undefined) return [];
  const options = dhcp.privateOptions ?? [];
  const causes: Causes = [];
  if (new Set(options.map((o) => o.option)).size < options.length) {
    causes.push(invalid(path, 'Found Duplicates: you have provided duplicate DHCPPrivateOptions'));
  }
  for (const o of options) {
    if (o.option < 224 || o.option > 254) {
      causes.push(invalid(path, 'provided DHCPPrivateOptions are out of range, must be in range 224 to 254'));
    }
  }
  (dhcp.ntpServers ?? []).forEach((ip, j) => {
    if (!isIPv4Like(ip)) {
      causes.push(
        invalid(
          item(at, ['dhcpOptions', 'ntpServers'], j),
          'NTP servers must be a list of valid IPv4 addresses.',
        ),
      );
    }
  });
  return causes;
}

export const interfaceFields: SpecRule = (spec, _ctx, path) => {
  const nets = new Map((spec.networks ?? []).map((n) => [n.name, n]));
  return (spec.domain.devices.interfaces ?? []).flatMap((iface, i) => {
    const at = item(path, ['domain', 'devices', 'interfaces'], i);
    return [
      ...addressCauses(iface, at),
      ...portCauses(iface, at, nets.get(iface.name)),
      ...dhcpCauses(iface, at, path),
    ];
  });
};
