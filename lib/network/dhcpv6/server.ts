/**
 * The DHCPv6 server the launcher runs for the guest of a masquerade interface when the Pod has IPv6 (kubevirt
 * pkg/network/dhcp/serverv6 SingleClientDHCPv6Server and conn.go NewConnection, tag v1.6.2): a UDP socket on
 * [::]:547 that joins All_DHCP_Relay_Agents_and_Servers (ff02::1:2) on the guest's link, answers each message
 * with reply.ts and sends the answer back to the address and port it came from. A packet that is not a
 * DHCPv6 message is logged without its bytes and dropped.
 *
 * KubeVirt asks the kernel on which interface each packet arrived and keeps those of the guest's link. Node
 * does not tell, but a client sends to ff02::1:2 from its link-local address, which Node reports with the
 * name of the interface it came in on as zone (`fe80::1%k6t-eth0`). So with a link given, only link-local
 * sources on that link are answered, and the answer, sent to that scoped address, leaves on that link.
 */
import { readFile } from 'node:fs/promises';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { ipOctets } from '../../kernel/x509/ip.ts';
import type { Dhcpv6Config } from './config.ts';
import { Dhcpv6DecodeError } from './errors.ts';
import { decodeMessage, DHCPV6_SERVER_PORT, encodeMessage } from './message.ts';
import { checkConfig, reply } from './reply.ts';

/** All_DHCP_Relay_Agents_and_Servers (RFC 8415 §7.1), where clients send. */
const ALL_SERVERS_GROUP = 'ff02::1:2';

export interface Dhcpv6ServerOptions {
  readonly config: Dhcpv6Config;
  /**
   * The guest's link (`k6t-eth0`): the group is joined there and only clients on it are answered. Without it
   * no group is joined and every source is answered (tests over loopback).
   */
  readonly link?: string;
  /** Default 547; 0 picks a free port. */
  readonly port?: number;
  readonly log: Logger;
}

export interface Dhcpv6Server {
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening; later calls do nothing. */
  close(): Promise<void>;
}

/** Whether a packet from `source` (Node's text, zone included) came from a client on `link`. */
export function fromLink(source: string, link: string | undefined): boolean {
  if (link === undefined) return true;
  const at = source.indexOf('%');
  const address = source.slice(0, at);
  if (at < 0 || source.slice(at + 1) !== link || !isIPv6(address)) return false;
  const octets = ipOctets(address);
  // fe80::/10
  return octets[0] === 0xfe && ((octets[1] ?? 0) & 0xc0) === 0x80;
}

/** The links of this process's network namespace (`/proc/self/net/dev`: `  name: counters`). */
async function linkNames(): Promise<string[]> {
  const text = await readFile('/proc/self/net/dev', 'utf8');
  return text.split('\n').flatMap((line) => {
    const name = /^\s*([^:\s|]+):/.exec(line)?.[1];
    return name === undefined ? [] : [name];
  });
}

function closeSocket(socket: Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    socket.close(() => {
      resolve();
    });
  });
}

async function listen(socket: Socket, port: number, link: string | undefined): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: '::', port }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    if (link !== undefined) {
      // An unknown zone would be scope 0, a membership wherever the kernel routes the group: refuse it. (Node's
      // own list of interfaces leaves out one without carrier, such as a bridge whose tap QEMU has not opened;
      // /proc/self/net is this process's namespace, where /sys may show another's.)
      if (!(await linkNames()).includes(link)) throw new Error(`no interface ${link}`);
      // The interface of a membership is given as the unspecified address scoped to it.
      socket.addMembership(ALL_SERVERS_GROUP, `::%${link}`);
    }
  } catch (err) {
    await closeSocket(socket);
    throw new KvError('KV_ERR_TRANSPORT', `the DHCPv6 server could not listen: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/** Checks the configuration (a Dhcpv6ValueError when it is refused), binds, then serves until closed. */
export async function startDhcpv6Server(opts: Dhcpv6ServerOptions): Promise<Dhcpv6Server> {
  const { config, link, log } = opts;
  checkConfig(config);
  const socket = createSocket({ type: 'udp6', reuseAddr: true, ipv6Only: true });

  const serve = (packet: Buffer, from: RemoteInfo): void => {
    if (!fromLink(from.address, link)) {
      log.v(4).info('DHCPv6 packet from off the link ignored', { from: from.address });
      return;
    }
    const request = decodeMessage(packet);
    const fields = { from: from.address, xid: request.transactionId, type: request.type };
    const answer = reply(request, config);
    if (answer === undefined) {
      log.v(4).info('DHCPv6 message not answered', fields);
      return;
    }
    socket.send(encodeMessage(answer), from.port, from.address, (err) => {
      if (err !== null) log.error('failed to send a DHCPv6 reply', { ...fields, reason: err });
    });
    log.v(4).info('DHCPv6 message answered', { ...fields, reply: answer.type });
  };
  socket.on('message', (packet, from) => {
    try {
      serve(packet, from);
    } catch (err) {
      const problem = err instanceof Dhcpv6DecodeError ? err.problem : undefined;
      log.warning('dropped a DHCPv6 packet', {
        from: from.address,
        length: packet.length,
        problem,
        reason: err,
      });
    }
  });

  await listen(socket, opts.port ?? DHCPV6_SERVER_PORT, link);
  socket.on('error', (err) => {
    log.error('DHCPv6 server socket failed', { reason: err });
  });
  const port = socket.address().port;
  log.info('DHCPv6 server listening', { port, link, address: config.address });

  let closed: Promise<void> | undefined;
  return { port, close: () => (closed ??= closeSocket(socket)) };
}
