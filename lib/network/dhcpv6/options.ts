/**
 * DHCPv6 options (RFC 8415 §21): the code/length/value layout every option and the options inside IA_NA and
 * IA Address share, the length each option the server reads must have, and the options it writes with every
 * value checked: the server's DUID, IA_NA holding the guest's one address, DNS servers (RFC 3646 option 23)
 * and the domain search list (option 24). This is the option handling insomniacslk/dhcp does for kubevirt
 * pkg/network/dhcp/serverv6 (tag v1.6.2).
 */
import { isIPv6 } from 'node:net';
import { canonicalIp, ipOctets } from '../../kernel/x509/ip.ts';
import { macBytes } from '../dhcp/message.ts';
import { Dhcpv6DecodeError, Dhcpv6ValueError } from './errors.ts';

export const OPTION = {
  clientId: 1,
  serverId: 2,
  iaNa: 3,
  iaAddress: 5,
  requestedOptions: 6,
  elapsedTime: 8,
  statusCode: 13,
  rapidCommit: 14,
  dnsServers: 23,
  domainList: 24,
} as const;

export interface Dhcpv6Option {
  readonly code: number;
  readonly data: Buffer;
}

const HEADER = 4;
const UINT16_MAX = 0xffff;
/** IA_NA: IAID, T1, T2 before its options; IA Address: the address and two lifetimes before its options. */
const IA_NA_FIXED = 12;
const IA_ADDRESS_FIXED = 24;
/** RFC 8415 §11.1: a 2-byte type, then 1–128 bytes of identifier. */
const DUID_LENGTH = { min: 3, max: 130 };
const DUID_LL = 3;
const HARDWARE_ETHERNET = 1;

const duidLength = (n: number): boolean => n >= DUID_LENGTH.min && n <= DUID_LENGTH.max;

/** The lengths RFC 8415 §21 (and RFC 3646 §3 for option 23) allow the options the server reads. */
const LENGTH_OK: ReadonlyMap<number, (length: number) => boolean> = new Map([
  [OPTION.clientId, duidLength],
  [OPTION.serverId, duidLength],
  [OPTION.iaNa, (n: number): boolean => n >= IA_NA_FIXED],
  [OPTION.iaAddress, (n: number): boolean => n >= IA_ADDRESS_FIXED],
  [OPTION.requestedOptions, (n: number): boolean => n % 2 === 0],
  [OPTION.elapsedTime, (n: number): boolean => n === 2],
  [OPTION.statusCode, (n: number): boolean => n >= 2],
  [OPTION.rapidCommit, (n: number): boolean => n === 0],
  [OPTION.dnsServers, (n: number): boolean => n % 16 === 0],
]);

/** Where the options inside an option start. */
const NESTED_AT: ReadonlyMap<number, number> = new Map([
  [OPTION.iaNa, IA_NA_FIXED],
  [OPTION.iaAddress, IA_ADDRESS_FIXED],
]);

function checkOption(option: Dhcpv6Option, where: string): void {
  const lengthOk = LENGTH_OK.get(option.code);
  if (lengthOk !== undefined && !lengthOk(option.data.length)) {
    const detail = `${where}: option ${option.code} cannot be ${option.data.length} bytes long`;
    throw new Dhcpv6DecodeError('option-length', detail);
  }
  const nestedAt = NESTED_AT.get(option.code);
  if (nestedAt !== undefined) decodeOptions(option.data.subarray(nestedAt), `option ${option.code}`);
}

/**
 * The options in `bytes`, in the order they came (a code may repeat: a client may send several IA_NA). The
 * options inside IA_NA and IA Address are checked the same way; `where` names the container in errors.
 */
export function decodeOptions(bytes: Buffer, where: string): Dhcpv6Option[] {
  const options: Dhcpv6Option[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + HEADER > bytes.length) {
      throw new Dhcpv6DecodeError('option-overrun', `${where}: ${bytes.length - at} stray bytes at ${at}`);
    }
    const code = bytes.readUInt16BE(at);
    const end = at + HEADER + bytes.readUInt16BE(at + 2);
    if (end > bytes.length) {
      throw new Dhcpv6DecodeError(
        'option-overrun',
        `${where}: option ${code} at byte ${at} runs past the end`,
      );
    }
    const option = { code, data: bytes.subarray(at + HEADER, end) };
    checkOption(option, where);
    options.push(option);
    at = end;
  }
  return options;
}

/** The options as they go on the wire; a code or length that does not fit 16 bits throws Dhcpv6ValueError. */
export function encodeOptions(options: readonly Dhcpv6Option[]): Buffer {
  return Buffer.concat(
    options.flatMap((o) => {
      if (!Number.isInteger(o.code) || o.code < 0 || o.code > UINT16_MAX) {
        throw new Dhcpv6ValueError(`option ${o.code}`, 'codes are 0–65535');
      }
      if (o.data.length > UINT16_MAX)
        throw new Dhcpv6ValueError(`option ${o.code}`, 'longer than 65535 bytes');
      const header = Buffer.alloc(HEADER);
      header.writeUInt16BE(o.code, 0);
      header.writeUInt16BE(o.data.length, 2);
      return [header, o.data];
    }),
  );
}

/** DUID-LL (RFC 8415 §11.4) of an Ethernet address: type 3, hardware type 1, the six octets. */
export function linkLayerDuid(mac: string): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(DUID_LL, 0);
  head.writeUInt16BE(HARDWARE_ETHERNET, 2);
  return Buffer.concat([head, macBytes(mac, 'serverMac')]);
}

/** A Client or Server Identifier carrying `duid`. */
export function duidOption(
  code: typeof OPTION.clientId | typeof OPTION.serverId,
  duid: Uint8Array,
): Dhcpv6Option {
  if (!duidLength(duid.length)) {
    throw new Dhcpv6ValueError(
      `option ${code}`,
      `a DUID is ${DUID_LENGTH.min}–${DUID_LENGTH.max} bytes, not ${duid.length}`,
    );
  }
  return { code, data: Buffer.from(duid) };
}

/** The sixteen octets of an IPv6 literal; anything else (IPv4, a zone) throws Dhcpv6ValueError naming field. */
function ipv6Bytes(address: string, field: string): Buffer {
  if (!isIPv6(address) || address.includes('%')) {
    throw new Dhcpv6ValueError(field, `${JSON.stringify(address)} is not an IPv6 address`);
  }
  return ipOctets(address);
}

/** RFC 5952 text of sixteen octets from `offset`. */
export function ipv6Text(bytes: Buffer, offset = 0): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(offset + 2 * i).toString(16));
  return canonicalIp(groups.join(':'));
}

const isUint32 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 0xffffffff;

export interface IaNaLease {
  readonly iaid: number;
  readonly address: string;
  /** Seconds; at most validLifetime (RFC 8415 §21.6). */
  readonly preferredLifetime: number;
  readonly validLifetime: number;
}

/**
 * IA_NA (RFC 8415 §21.4) with one IA Address (§21.6) and no status: T1 and T2 are 0, leaving the renewal times
 * to the client, as KubeVirt sends them.
 */
export function iaNaOption(lease: IaNaLease): Dhcpv6Option {
  const field = `option ${OPTION.iaNa}`;
  const { preferredLifetime: preferred, validLifetime: valid } = lease;
  if (!isUint32(lease.iaid)) throw new Dhcpv6ValueError(field, `IAID ${lease.iaid} is not 32 bits`);
  if (!isUint32(preferred) || !isUint32(valid) || preferred > valid) {
    throw new Dhcpv6ValueError(
      field,
      `lifetimes ${preferred}/${valid} are not seconds with preferred ≤ valid`,
    );
  }
  const address = Buffer.alloc(IA_ADDRESS_FIXED);
  ipv6Bytes(lease.address, 'address').copy(address, 0);
  address.writeUInt32BE(preferred, 16);
  address.writeUInt32BE(valid, 20);
  const head = Buffer.alloc(IA_NA_FIXED);
  head.writeUInt32BE(lease.iaid, 0);
  return {
    code: OPTION.iaNa,
    data: Buffer.concat([head, encodeOptions([{ code: OPTION.iaAddress, data: address }])]),
  };
}

/** The IAID of an IA_NA option's data; undefined when it is too short to hold one. */
export function iaidOf(iaNa: Buffer): number | undefined {
  return iaNa.length >= 4 ? iaNa.readUInt32BE(0) : undefined;
}

/** Option 23 (RFC 3646 §3): the addresses in order, sixteen octets each. */
export function dnsServersOption(addresses: readonly string[]): Dhcpv6Option {
  const field = `option ${OPTION.dnsServers}`;
  if (addresses.length === 0) throw new Dhcpv6ValueError(field, 'needs at least one address');
  return { code: OPTION.dnsServers, data: Buffer.concat(addresses.map((a) => ipv6Bytes(a, field))) };
}

/** A label of a host name: letters, digits, `-` and `_`, 1–63 of them, not starting or ending with `-`. */
const LABEL = /^(?=.{1,63}$)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/i;

function nameBytes(domain: string, field: string): Buffer {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  const labels = name.split('.');
  if (name.length > 253 || !labels.every((l) => LABEL.test(l))) {
    throw new Dhcpv6ValueError(field, `${JSON.stringify(domain)} is not a valid search domain`);
  }
  const parts = labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}

/** Option 24 (RFC 3646 §4): each name as RFC 1035 labels ending in the root, uncompressed (RFC 8415 §10). */
export function domainListOption(domains: readonly string[]): Dhcpv6Option {
  const field = `option ${OPTION.domainList}`;
  if (domains.length === 0) throw new Dhcpv6ValueError(field, 'needs at least one domain');
  return { code: OPTION.domainList, data: Buffer.concat(domains.map((d) => nameBytes(d, field))) };
}
