/** `host:port` listen addresses as the flags take them: `127.0.0.1:23915`, `:24192` (every interface), `[::1]:0`. */
import { KvError } from '../../kernel/errors/errors.ts';

export interface ListenAddress {
  /** undefined: every interface. */
  readonly host: string | undefined;
  readonly port: number;
}

export function parseListenAddress(addr: string): ListenAddress {
  const colon = addr.lastIndexOf(':');
  const portText = colon === -1 ? '' : addr.slice(colon + 1);
  const port = Number(portText);
  if (colon === -1 || portText === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new KvError('KV_ERR_CONFIG', `listen address "${addr}" must be host:port or :port (port 0-65535)`);
  }
  const rawHost = addr.slice(0, colon);
  const host = rawHost.startsWith('[') && rawHost.endsWith(']') ? rawHost.slice(1, -1) : rawHost;
  if (host.includes(':') && !rawHost.startsWith('['))
    throw new KvError(
      'KV_ERR_CONFIG',
      `listen address "${addr}": write IPv6 hosts in brackets, e.g. [::1]:8080`,
    );
  return { host: host === '' ? undefined : host, port };
}
