/**
 * The DHCP options the server sends (RFC 2132, RFC 3397 domain search, RFC 3442 classless static routes) as
 * option code and bytes, each value checked against what its option can hold. The 255-byte limit of one
 * option is not checked here: message.ts splits a longer value over several options of the same code, as
 * RFC 3396 asks, so a long search list or route table still reaches the guest whole. This mirrors what
 * kubevirt pkg/network/dhcp/server prepareDHCPOptions encodes (tag v1.6.2).
 */
import { DhcpValueError } from './errors.ts';
import { ipv4Bytes, prefixMask, subnetAddress, UNSPECIFIED } from './ipv4.ts';
import type { DhcpOption } from './message.ts';

export const OPTION = {
  subnetMask: 1,
  router: 3,
  dnsServers: 6,
  hostname: 12,
  domainName: 15,
  interfaceMtu: 26,
  ntpServers: 42,
  requestedAddress: 50,
  leaseTime: 51,
  messageType: 53,
  serverIdentifier: 54,
  message: 56,
  tftpServerName: 66,
  bootFileName: 67,
  domainSearch: 119,
  classlessRoutes: 121,
} as const;

export const MESSAGE_TYPE = {
  discover: 1,
  offer: 2,
  request: 3,
  decline: 4,
  ack: 5,
  nak: 6,
  release: 7,
  inform: 8,
} as const;
export type MessageType = (typeof MESSAGE_TYPE)[keyof typeof MESSAGE_TYPE];

/** The codes RFC 2132 §2 leaves to each site, the only ones a VMI's privateOptions may set. */
export const PRIVATE_OPTION_CODES = { first: 224, last: 254 } as const;

/** A route for option 121; no gateway means the destination is on the link (RFC 3442 router 0.0.0.0). */
export interface ClasslessRoute {
  /** `a.b.c.d/n`; `0.0.0.0/0` is the default route. */
  readonly destination: string;
  readonly gateway?: string;
}

const field = (code: number): string => `option ${code}`;

export function messageTypeOption(type: MessageType): DhcpOption {
  return { code: OPTION.messageType, data: Buffer.from([type]) };
}

/** Options whose value is one or more IPv4 addresses (router, DNS and NTP servers, server identifier). */
export function addressesOption(code: number, addresses: readonly string[]): DhcpOption {
  if (addresses.length === 0) throw new DhcpValueError(field(code), 'needs at least one address');
  return { code, data: Buffer.concat(addresses.map((a) => ipv4Bytes(a, field(code)))) };
}

export function subnetMaskOption(prefixLength: number): DhcpOption {
  const data = Buffer.alloc(4);
  data.writeUInt32BE(prefixMask(prefixLength, field(OPTION.subnetMask)));
  return { code: OPTION.subnetMask, data };
}

/** Options whose value is text (hostname, domain name, TFTP server, boot file, a private option). */
export function textOption(code: number, text: string): DhcpOption {
  if (text === '') throw new DhcpValueError(field(code), 'is empty');
  return { code, data: Buffer.from(text, 'utf8') };
}

/** Option 26; RFC 2132 §5.1 sets the smallest MTU at 68. */
export function mtuOption(mtu: number): DhcpOption {
  if (!Number.isInteger(mtu) || mtu < 68 || mtu > 0xffff) {
    throw new DhcpValueError(field(OPTION.interfaceMtu), `MTU ${mtu} is not 68–65535`);
  }
  const data = Buffer.alloc(2);
  data.writeUInt16BE(mtu);
  return { code: OPTION.interfaceMtu, data };
}

/** Option 51, in seconds. */
export function leaseTimeOption(seconds: number): DhcpOption {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffffffff) {
    throw new DhcpValueError(field(OPTION.leaseTime), `${seconds} is not a 32-bit number of seconds`);
  }
  const data = Buffer.alloc(4);
  data.writeUInt32BE(seconds);
  return { code: OPTION.leaseTime, data };
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?$/;
const LAST_LABEL = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The labels of a search domain as KubeVirt accepts one: lower-case labels of letters, digits, `_` and `-`,
 * at most 63 characters each and 253 in all; a label starts with a letter, digit or `_` and ends with a letter
 * or digit, and the last of a name without a trailing dot starts with a letter. The trailing dot of a fully
 * qualified name is the root label, which every name here ends in anyway: it is dropped, where KubeVirt
 * writes it as a second, empty root label.
 */
function searchDomainLabels(domain: string): string[] {
  const qualified = domain.endsWith('.');
  const name = qualified ? domain.slice(0, -1) : domain;
  const labels = name.split('.');
  const last = labels[labels.length - 1] ?? '';
  const lastOk = qualified || LAST_LABEL.test(last);
  if (domain.length > 253 || !labels.every((l) => LABEL.test(l)) || !lastOk) {
    throw new DhcpValueError(
      field(OPTION.domainSearch),
      `${JSON.stringify(domain)} is not a valid search domain`,
    );
  }
  return labels;
}

/** Option 119: each name as RFC 1035 §3.1 labels ending in the root, without compression (RFC 3397 §2). */
export function domainSearchOption(domains: readonly string[]): DhcpOption {
  if (domains.length === 0) throw new DhcpValueError(field(OPTION.domainSearch), 'needs at least one domain');
  const parts = domains.flatMap((domain) => [
    ...searchDomainLabels(domain).map((l) =>
      Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]),
    ),
    Buffer.from([0]),
  ]);
  return { code: OPTION.domainSearch, data: Buffer.concat(parts) };
}

function classlessRoute(route: ClasslessRoute): Buffer {
  const [address = '', width = ''] = route.destination.split('/');
  const prefixLength = /^\d{1,2}$/.test(width) ? Number(width) : Number.NaN;
  const at = field(OPTION.classlessRoutes);
  const network = ipv4Bytes(subnetAddress({ address, prefixLength, field: at }, 'network'), at);
  const significant = network.subarray(0, Math.ceil(prefixLength / 8));
  const gateway = ipv4Bytes(route.gateway ?? UNSPECIFIED, at);
  return Buffer.concat([Buffer.from([prefixLength]), significant, gateway]);
}

/**
 * Option 121 (RFC 3442): each route as its prefix length, the significant octets of its destination and its
 * router. Default routes go last, as KubeVirt sorts them, so the routes to their gateways come first.
 */
export function classlessRoutesOption(routes: readonly ClasslessRoute[]): DhcpOption {
  if (routes.length === 0)
    throw new DhcpValueError(field(OPTION.classlessRoutes), 'needs at least one route');
  const isDefault = (r: ClasslessRoute): boolean => r.destination.endsWith('/0');
  const ordered = [...routes.filter((r) => !isDefault(r)), ...routes.filter(isDefault)];
  return { code: OPTION.classlessRoutes, data: Buffer.concat(ordered.map(classlessRoute)) };
}

/** A site-specific option (224–254) with a text value. */
export function privateOption(code: number, value: string): DhcpOption {
  if (!Number.isInteger(code) || code < PRIVATE_OPTION_CODES.first || code > PRIVATE_OPTION_CODES.last) {
    throw new DhcpValueError(field(code), 'private options are 224–254');
  }
  return { code, data: Buffer.from(value, 'utf8') };
}
