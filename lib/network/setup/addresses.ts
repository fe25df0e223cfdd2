/**
 * The address arithmetic of the Pod network setup (kubevirt pkg/network/setup/netpod gatewayIP, masquerade
 * guestIPByGatewayInterface with netmachinery.NextIP, and Go's net.IP.IsGlobalUnicast, tag v1.6.2): the
 * gateway and guest addresses of a VM CIDR, and whether an address of the pod interface is global unicast.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { KvError } from '../../kernel/errors/errors.ts';
import { InvalidFieldError } from '../../kubevirt/field-error.ts';
import { canonicalIp, ipOctets } from '../../kernel/x509/ip.ts';

/** nftables' names of the two address families, used throughout the setup. */
export type IpFamily = 'ip' | 'ip6';

/** An address of a link with its prefix length: `10.244.0.5` and 24. */
export interface IpAddress {
  readonly address: string;
  readonly prefixLength: number;
}

/** The VM subnet a masquerade interface gets when its pod network names none (api.DefaultVMCIDR, DefaultVMIpv6CIDR). */
const DEFAULT_VM_CIDR: Readonly<Record<IpFamily, string>> = {
  ip: '10.0.2.0/24',
  ip6: 'fd10:0:2::/120',
};

const BITS: Readonly<Record<IpFamily, number>> = { ip: 32, ip6: 128 };

/** The family of an address, or undefined for anything but an IPv4 or IPv6 literal. */
const familyOf = (address: string): IpFamily | undefined =>
  isIPv4(address) ? 'ip' : isIPv6(address) ? 'ip6' : undefined;

const toNumber = (address: string): bigint => BigInt(`0x${ipOctets(address).toString('hex')}`);

function toText(n: bigint, family: IpFamily): string {
  const hex = n.toString(16).padStart(BITS[family] / 4, '0');
  if (family === 'ip') return (hex.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)).join('.');
  return canonicalIp((hex.match(/.{4}/g) ?? []).join(':'));
}

/** The gateway (the subnet's first host address, with the subnet's prefix) and the guest (the next one). */
export interface VmSubnet {
  readonly gateway: IpAddress;
  readonly guest: string;
}

/**
 * gatewayIP of netpod.go with the guest address masquerade.go derives from it: the CIDR of `family` (its
 * default when empty), at least two host addresses wide. A bad CIDR is an InvalidFieldError naming `field`.
 */
export function vmSubnet(family: IpFamily, cidr: string, field: string): VmSubnet {
  const text = cidr === '' ? DEFAULT_VM_CIDR[family] : cidr;
  const [address = '', prefixText = '', ...rest] = text.split('/');
  const prefix = Number(prefixText);
  const valid =
    rest.length === 0 && /^\d+$/.test(prefixText) && familyOf(address) === family && prefix <= BITS[family];
  if (!valid) throw new InvalidFieldError(field, `${JSON.stringify(text)} is not a valid CIDR`);
  if (prefix > BITS[family] - 2) {
    throw new InvalidFieldError(field, `${text} has room for fewer than two host addresses`);
  }
  const hostBits = BigInt(BITS[family] - prefix);
  const network = (toNumber(address) >> hostBits) << hostBits;
  return {
    gateway: { address: toText(network + 1n, family), prefixLength: prefix },
    guest: toText(network + 2n, family),
  };
}

/** Go's IsGlobalUnicast: not unspecified, loopback, multicast, link-local, nor the IPv4 broadcast address. */
export function isGlobalUnicast(address: string): boolean {
  const family = familyOf(address);
  if (family === undefined) return false;
  const n = toNumber(address);
  if (family === 'ip') {
    const first = n >> 24n;
    return n !== 0n && n !== 0xffffffffn && first !== 127n && first < 224n && n >> 16n !== 0xa9fen;
  }
  const top16 = n >> 112n;
  return n !== 0n && n !== 1n && n >> 120n !== 0xffn && top16 >> 6n !== 0x3fan;
}

/** The subnet of an address in CIDR form: 10.244.0.5/24 → `10.244.0.0/24`. */
export function networkOf(a: IpAddress): string {
  const family = familyOf(a.address);
  if (family === undefined)
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(a.address)} is not an IP address`);
  const hostBits = BigInt(BITS[family] - a.prefixLength);
  return `${toText((toNumber(a.address) >> hostBits) << hostBits, family)}/${a.prefixLength}`;
}

/** The directed broadcast address of an IPv4 address's subnet: 10.244.0.5/24 → `10.244.0.255`. */
export function broadcastOf(a: IpAddress): string {
  if (!isIPv4(a.address)) throw new KvError('KV_ERR_INVALID', `${JSON.stringify(a.address)} is not IPv4`);
  const hostBits = BigInt(32 - a.prefixLength);
  return toText(((toNumber(a.address) >> hostBits) << hostBits) | ((1n << hostBits) - 1n), 'ip');
}

/** Whether any of the addresses is global unicast (netpod.go hasIPGlobalUnicast). */
export const anyGlobalUnicast = (addresses: readonly IpAddress[]): boolean =>
  addresses.some((a) => isGlobalUnicast(a.address));
