/**
 * IPv4 addresses as the DHCP wire carries them: dotted text to four octets and back, prefix masks and the
 * directed broadcast address of a subnet. Anything but a dotted-quad IPv4 literal is refused.
 */
import { isIPv4 } from 'node:net';
import { DhcpValueError } from './errors.ts';

/** The address of a field no one has filled in (ciaddr of a client in INIT, giaddr without a relay). */
export const UNSPECIFIED = '0.0.0.0';

/** The four octets of a dotted-quad address; `field` names what it is in the error. */
export function ipv4Bytes(text: string, field: string): Buffer {
  if (!isIPv4(text)) throw new DhcpValueError(field, `${JSON.stringify(text)} is not an IPv4 address`);
  return Buffer.from(text.split('.').map(Number));
}

/** Four octets from `offset` as dotted text; undefined when fewer than four are there. */
export function ipv4Text(bytes: Uint8Array, offset = 0): string | undefined {
  if (bytes.length < offset + 4) return undefined;
  return Array.from(bytes.subarray(offset, offset + 4)).join('.');
}

const toNumber = (octets: Uint8Array): number => Buffer.from(octets).readUInt32BE(0);
const fromNumber = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 0xff).join('.');

/** The mask of a prefix length 0–32, as an unsigned 32-bit number. */
export function prefixMask(prefixLength: number, field: string): number {
  if (!Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > 32) {
    throw new DhcpValueError(field, `prefix length ${prefixLength} is not 0–32`);
  }
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

/** An address in a subnet; `field` names it in errors. */
export interface Subnet {
  readonly address: string;
  readonly prefixLength: number;
  readonly field: string;
}

/** The subnet's network address (host bits cleared) or directed broadcast address (host bits set). */
export function subnetAddress(subnet: Subnet, which: 'network' | 'broadcast'): string {
  const ip = toNumber(ipv4Bytes(subnet.address, subnet.field));
  const mask = prefixMask(subnet.prefixLength, subnet.field);
  return fromNumber(which === 'network' ? (ip & mask) >>> 0 : (ip | ~mask) >>> 0);
}

/** The address `n` after `address` (n ≥ 0), wrapping past 255.255.255.255. */
export function addressAfter(address: string, n: number): string {
  return fromNumber((toNumber(ipv4Bytes(address, 'address')) + n) >>> 0);
}
