/**
 * An IP address as the octets of a subjectAltName iPAddress (RFC 5280 §4.2.1.6: four for IPv4, sixteen for
 * IPv6), as Go's net.ParseIP gives crypto/x509 the addresses of a certificate.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { KvError } from '../errors/errors.ts';

function v4Octets(text: string): number[] {
  return text.split('.').map(Number);
}

function groupOctets(groups: readonly string[]): number[] {
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function v6Octets(text: string): number[] {
  const lastColon = text.lastIndexOf(':');
  const v4Tail = isIPv4(text.slice(lastColon + 1)) ? v4Octets(text.slice(lastColon + 1)) : [];
  const hex = v4Tail.length === 0 ? text : text.slice(0, lastColon + 1);
  const [head = '', tail] = hex.split('::');
  const split = (s: string): string[] => s.split(':').filter((g) => g !== '');
  const headOctets = groupOctets(split(head));
  const tailOctets = [...groupOctets(split(tail ?? '')), ...v4Tail];
  const zeros = 16 - headOctets.length - tailOctets.length;
  return [...headOctets, ...Array<number>(zeros).fill(0), ...tailOctets];
}

/** The address's octets; a zone (`%eth0`) or anything but an IPv4 or IPv6 literal is refused. */
export function ipOctets(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(v4Octets(address));
  if (isIPv6(address) && !address.includes('%')) return Buffer.from(v6Octets(address));
  throw new KvError('KV_ERR_INVALID', `IP address ${JSON.stringify(address)} is not an IPv4 or IPv6 literal`);
}

/** IPv4 as given; IPv6 in its RFC 5952 text (lower case, longest zero run as `::`), as URL hosts are written. */
export function canonicalIp(address: string): string {
  return isIPv6(address) ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address;
}
