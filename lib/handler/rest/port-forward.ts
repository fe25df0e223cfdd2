/**
 * A port-forward tunnel (`portforward/{port}/{protocol}`, KubeVirt's handler route): the VMI (404), the port
 * and protocol (tcp or udp; 400), a websocket request (400), the launcher's
 * port-forward socket dialled without following a symlink (400/500 as the console's), then the launcher asked
 * to connect to the port inside the launcher Pod's namespace (lib/rpc/port-forward.ts): a port that refuses or
 * does not answer is answered 500 `dialing VM: …` before the upgrade (KubeVirt's api words for its own dial),
 * never a websocket that opens and dies. Then the websocket is relayed to the connection as binary frames of
 * at most 10 KiB (tcp), or a datagram per message (udp). Tunnels are not limited per VMI: each local
 * connection of a client opens one.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { errorMessage } from '../../kernel/errors/errors.ts';
import { acceptUpgrade } from '../../kernel/ws/accept.ts';
import { relayWebSocket } from '../../kernel/ws/relay.ts';
import { podPathText } from '../../rpc/index.ts';
import {
  DatagramReader,
  frameDatagram,
  MAX_DATAGRAM_BYTES,
  parseAnswerLine,
  parsePort,
  readLine,
  requestLine,
} from '../../rpc/port-forward.ts';
import { isRestError, vmiNotFound, type RestError } from './errors.ts';
import {
  dialFailure,
  dialUnix,
  isWebsocketRequest,
  refuse,
  WEBSOCKET_MESSAGE_BUFFER_SIZE,
  type StreamContext,
} from './upgrade.ts';

/** Datagrams queued towards a UDP client beyond this are dropped. */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** How long the launcher may take to connect to the guest's port and say so. */
const ANSWER_TIMEOUT_MS = 10_000;

interface Upgrade {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
}

interface Where {
  readonly namespace: string;
  readonly name: string;
  readonly port?: string;
  readonly protocol?: string;
}

/** The launcher's connection to the guest's port, or why there is none. */
async function tunnel(ctx: StreamContext, w: Where, upgrade: Upgrade): Promise<Socket | RestError> {
  const vmi = ctx.resolver.vmi(w.namespace, w.name);
  if (vmi === undefined) return vmiNotFound(w.namespace, w.name);
  const port = parsePort(w.port ?? '');
  if (port === undefined) return { status: 400, message: `invalid port ${JSON.stringify(w.port)}` };
  const protocol = w.protocol;
  if (protocol !== 'tcp' && protocol !== 'udp')
    return { status: 400, message: `invalid protocol ${JSON.stringify(protocol)}` };
  const at = ctx.resolver.portForwardSocket(vmi);
  if (isRestError(at)) return at;
  if (!isWebsocketRequest(upgrade.req)) return { status: 400, message: 'Bad Request\n' };
  let unix: Socket;
  try {
    unix = await dialUnix(at, ctx.clock);
  } catch (err) {
    ctx.log.warning('port-forward socket dial failed', { path: podPathText(at), reason: err });
    return dialFailure(at, err);
  }
  try {
    unix.write(requestLine({ protocol, port }));
    const answer = parseAnswerLine(await readLine(unix, ANSWER_TIMEOUT_MS));
    if (answer.ok) return unix;
    unix.destroy();
    return { status: 500, message: `dialing VM: ${answer.error}` };
  } catch (err) {
    unix.destroy();
    return { status: 500, message: `dialing VM: port ${port}: ${errorMessage(err)}` };
  }
}

export async function openPortForward(ctx: StreamContext, upgrade: Upgrade, w: Where): Promise<void> {
  upgrade.socket.on('error', () => undefined);
  const log = ctx.log.with({ namespace: w.namespace, name: w.name, port: w.port, protocol: w.protocol });
  const conn = await tunnel(ctx, w, upgrade);
  if (isRestError(conn)) {
    ctx.answered('portforward', conn.status);
    log.v(2).info('port-forward refused', { code: conn.status, reason: conn.message });
    refuse(upgrade.socket, conn);
    return;
  }
  let ws: WebSocket;
  try {
    ws = await acceptUpgrade(ctx.wss, upgrade.req, upgrade.socket, upgrade.head);
  } catch (err) {
    conn.destroy();
    ctx.answered('portforward', 400);
    log.v(2).info('port-forward websocket upgrade failed', { reason: err });
    return;
  }
  ctx.answered('portforward', 101);
  if (w.protocol === 'udp') {
    relayDatagrams(ws, conn);
    log.v(2).info('port-forward tunnel opened');
    return;
  }
  const session = relayWebSocket(ws, conn, {
    pingIntervalMs: ctx.pingIntervalMs,
    clock: ctx.clock,
    peerClosed: 'guest-closed',
    frameBytes: WEBSOCKET_MESSAGE_BUFFER_SIZE,
  });
  // readLine left the connection paused with what followed the answer put back.
  conn.resume();
  log.v(2).info('port-forward tunnel opened');
  const end = await session.done;
  log.v(2).info('port-forward tunnel closed', {
    reason: end.reason,
    bytesToClient: end.bytesToClient,
    bytesFromClient: end.bytesFromClient,
  });
}

/**
 * UDP: each binary message of the client is one datagram to the guest's port, each datagram back one message
 * (as KubeVirt's virtctl sends and reads them); the launcher's stream carries them framed. A datagram too big
 * for UDP ends the tunnel with 1009.
 */
function relayDatagrams(ws: WebSocket, conn: Socket): void {
  const reader = new DatagramReader();
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    if (data.length > MAX_DATAGRAM_BYTES) {
      ws.close(1009, 'datagram too large');
      return;
    }
    conn.write(frameDatagram(data));
  });
  conn.on('data', (chunk: Buffer) => {
    // A client that does not read loses datagrams, as a full socket buffer would drop them: never a queue without bound.
    for (const d of reader.push(chunk))
      if (ws.bufferedAmount < MAX_QUEUED_BYTES) ws.send(d, { binary: true });
  });
  ws.on('close', () => conn.destroy());
  ws.on('error', () => conn.destroy());
  conn.on('close', () => {
    if (ws.readyState === ws.OPEN) ws.close(1000);
  });
  conn.resume();
}
