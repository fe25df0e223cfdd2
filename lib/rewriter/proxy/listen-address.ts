/** `host:port` listen addresses as the flags take them: `127.0.0.1:23915`, `:24192` (every interface), `[::1]:0`. */
import { BlockList, isIP } from 'node:net';
import { KvError } from '../../kernel/errors/errors.ts';

export interface ListenAddress {
  /** undefined: every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

function portOf(text: string): number | undefined {
  const port = Number(text);
  return text !== '' && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}

/** `what` names the address in errors: the flag that gave it (`--listen`). */
export function parseListenAddress(addr: string, what = 'listen address'): ListenAddress {
  const colon = addr.lastIndexOf(':');
  const port = colon === -1 ? undefined : portOf(addr.slice(colon + 1));
  if (port === undefined) {
    throw new KvError('KV_ERR_CONFIG', `${what} "${addr}" must be host:port or :port (port 0-65535)`);
  }
  const rawHost = addr.slice(0, colon);
  const host = rawHost.startsWith('[') && rawHost.endsWith(']') ? rawHost.slice(1, -1) : rawHost;
  if (host.includes(':') && !rawHost.startsWith('['))
    throw new KvError('KV_ERR_CONFIG', `${what} "${addr}": write IPv6 hosts in brackets, e.g. [::1]:8080`);
  return { host: host === '' ? undefined : host, port };
}

/** 127.0.0.0/8 and ::1, in any spelling (IPv4-mapped ::ffff:127.x included). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Only this machine can connect: a 127.0.0.0/8 or ::1 address, or the name localhost. Every interface
 * (no host, 0.0.0.0, ::), another address or any other name is not loopback.
 */
export function isLoopback(addr: ListenAddress): boolean {
  const host = addr.host;
  if (host === undefined) return false;
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}
