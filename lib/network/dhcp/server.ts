/**
 * The DHCPv4 server the launcher runs for one guest interface of the masquerade or bridge binding (kubevirt
 * pkg/network/dhcp/server SingleClientDHCPServer, tag v1.6.2): a UDP socket that reads each packet, answers
 * it with reply.ts and sends the answer to the client port. A packet that is not a DHCP message is logged
 * without its bytes and dropped.
 *
 * KubeVirt listens on every address and keeps the packets that came in on the interface's link. Node cannot
 * tell on which device a datagram arrived, so the client MAC is the filter here, and several servers on one
 * port (reuseAddr) each see every broadcast. A unicast renewal reaches only one of them; a guest whose
 * renewal goes unanswered rebinds by broadcast, which its own server answers. Replies leave by the routing
 * table, so the guest's address and the configured broadcastAddress must route onto the guest's link.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { checkConfig } from './config-options.ts';
import { DhcpDecodeError } from './errors.ts';
import type { DhcpConfig } from './config.ts';
import { decodeMessage, DHCP_CLIENT_PORT, DHCP_SERVER_PORT, encodeMessage } from './message.ts';
import { messageTypeOf, reply } from './reply.ts';

export interface DhcpServerOptions {
  readonly config: DhcpConfig;
  /** The address to listen on; 0.0.0.0 in the launcher, the only one a client's 255.255.255.255 reaches. */
  readonly address: string;
  /** Default 67; 0 picks a free port. */
  readonly port?: number;
  /** Where replies go; default 68. */
  readonly clientPort?: number;
  readonly log: Logger;
}

export interface DhcpServer {
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening; later calls do nothing. */
  close(): Promise<void>;
}

/** Checks the configuration (a DhcpValueError when it is refused), binds, then serves until closed. */
export async function startDhcpServer(opts: DhcpServerOptions): Promise<DhcpServer> {
  const { config, log } = opts;
  checkConfig(config);
  const clientPort = opts.clientPort ?? DHCP_CLIENT_PORT;
  const socket = createSocket({ type: 'udp4', reuseAddr: true });

  const serve = (packet: Buffer, from: RemoteInfo): void => {
    const request = decodeMessage(packet);
    const answer = reply(request, config);
    const fields = { client: request.chaddr, xid: request.xid, type: messageTypeOf(request) };
    if (answer === undefined) {
      log.v(4).info('DHCP request not answered', { ...fields, from: from.address });
      return;
    }
    const { destination } = answer;
    socket.send(encodeMessage(answer.message), clientPort, destination, (err) => {
      if (err !== null) log.error('failed to send a DHCP reply', { ...fields, destination, reason: err });
    });
    log.v(4).info('DHCP request answered', { ...fields, reply: messageTypeOf(answer.message), destination });
  };
  socket.on('message', (packet, from) => {
    try {
      serve(packet, from);
    } catch (err) {
      const problem = err instanceof DhcpDecodeError ? err.problem : undefined;
      log.warning('dropped a DHCP packet', {
        from: from.address,
        length: packet.length,
        problem,
        reason: err,
      });
    }
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error): void => {
      socket.close(() => undefined);
      reject(new KvError('KV_ERR_TRANSPORT', 'the DHCP server could not listen', { cause: err }));
    };
    socket.once('error', failed);
    socket.bind({ address: opts.address, port: opts.port ?? DHCP_SERVER_PORT }, () => {
      socket.off('error', failed);
      resolve();
    });
  });
  socket.on('error', (err) => {
    log.error('DHCP server socket failed', { reason: err });
  });
  socket.setBroadcast(true);
  const port = socket.address().port;
  log.info('DHCP server listening', { address: opts.address, port, client: config.clientMac });

  let closed: Promise<void> | undefined;
  return {
    port,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      })),
  };
}
