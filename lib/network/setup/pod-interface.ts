/**
 * What the setup reads of a launcher Pod's network namespace, decoded from iproute2's JSON (`ip -j addr show
 * dev`, `ip -j -4 route show dev`, `ip -j -d link show`): the pod interface as KubeVirt's nmstate status
 * reads it (pkg/network/driver/nmstate status.go, tag v1.6.2), its IPv4 routes for the bridge binding's DHCP,
 * and the links present with their kind.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { IpAddress } from './addresses.ts';

export interface Route {
  /** A CIDR: `0.0.0.0/0` for the default route, `/32` for a host. */
  readonly destination: string;
  readonly gateway?: string;
}

export interface PodInterface {
  readonly name: string;
  readonly mtu: number;
  readonly mac: string;
  /** Every address of the family, link-local ones included, in the kernel's order. */
  readonly ipv4: readonly IpAddress[];
  readonly ipv6: readonly IpAddress[];
  /** The IPv4 routes through the interface in the main table. */
  readonly routes: readonly Route[];
}

/** A link and its kind (`bridge`, `tun`, `dummy`, `veth`, … ; '' for a device without one, like `lo`). */
export interface Link {
  readonly name: string;
  readonly kind: string;
}

interface AddrInfo {
  readonly family?: unknown;
  readonly local?: unknown;
  readonly prefixlen?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function records(json: string, what: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json === '' ? '[]' : json);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `${what}: not JSON`, { cause: err });
  }
  if (!Array.isArray(parsed) || !parsed.every(isRecord)) {
    throw new KvError('KV_ERR_DECODE', `${what}: not a JSON array of objects`);
  }
  return parsed;
}

function addresses(info: readonly AddrInfo[], family: 'inet' | 'inet6'): IpAddress[] {
  return info.flatMap((a) =>
    a.family === family && typeof a.local === 'string' && typeof a.prefixlen === 'number'
      ? [{ address: a.local, prefixLength: a.prefixlen }]
      : [],
  );
}

function route(r: Record<string, unknown>): Route[] {
  const dst = r['dst'];
  if (typeof dst !== 'string') return [];
  const destination = dst === 'default' ? '0.0.0.0/0' : dst.includes('/') ? dst : `${dst}/32`;
  const gateway = r['gateway'];
  return [typeof gateway === 'string' ? { destination, gateway } : { destination }];
}

/** The interface `name` from `ip -j addr show dev <name>` and `ip -j -4 route show dev <name>`. */
export function parsePodInterface(name: string, addrJson: string, routeJson: string): PodInterface {
  const link = records(addrJson, `ip addr show dev ${name}`).find((l) => l['ifname'] === name);
  const mtu = link?.['mtu'];
  const mac = link?.['address'];
  if (link === undefined || typeof mtu !== 'number' || typeof mac !== 'string') {
    throw new KvError('KV_ERR_DECODE', `ip addr show dev ${name}: no link ${name} with an MTU and a MAC`);
  }
  const rawInfo = link['addr_info'];
  const info = Array.isArray(rawInfo) ? rawInfo.filter(isRecord) : [];
  return {
    name,
    mtu,
    mac,
    ipv4: addresses(info, 'inet'),
    ipv6: addresses(info, 'inet6'),
    routes: records(routeJson, `ip route show dev ${name}`).flatMap(route),
  };
}

/** The links of `ip -j -d link show`. */
export function parseLinks(linkJson: string): Link[] {
  return records(linkJson, 'ip link show').flatMap((l) => {
    const name = l['ifname'];
    const info = l['linkinfo'];
    const kind = isRecord(info) && typeof info['info_kind'] === 'string' ? info['info_kind'] : '';
    return typeof name === 'string' ? [{ name, kind }] : [];
  });
}
