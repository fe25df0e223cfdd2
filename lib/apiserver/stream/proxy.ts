/**
 * A console or VNC upgrade the api has already authenticated, authorized and checked (the VMI's preconditions):
 * the handler's stream is opened first, so a refusal (the handler's 409 for a console in use, its 400 for a
 * missing socket, an unreachable handler) reaches the client as an HTTP answer with a Kubernetes Status, not as
 * a websocket that opens and dies; then the client's upgrade is accepted with the subprotocol it offered
 * (`plain.kubevirt.io` or the Deckhouse client's `plain.virtualization.deckhouse.io`) and both are relayed
 * (lib/kernel/ws/relay.ts). Payloads pass unchanged as binary frames both ways (KubeVirt's raw streamer copies the
 * bytes after both upgrades; relaying frames does the same for the payload and lets the api close each side with
 * a proper close frame); the api pings the client, the handler pings the api and ws answers.
 * The client's side takes messages of up to 1 MiB, as the handler's REST server does (ws's default is
 * 100 MiB); a larger one ends the session with 1009.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Clock } from '../../kernel/clock.ts';
import { newStatus, type Status } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { acceptUpgrade } from '../../kernel/ws/accept.ts';
import { relayWebSocket, type RelaySession } from '../../kernel/ws/relay.ts';
import { HandlerDialError, openHandlerStream, type HandlerAddress, type HandlerTls } from './dial.ts';

export const DECKHOUSE_STREAM_PROTOCOL = 'plain.virtualization.deckhouse.io';
const STREAM_PROTOCOLS: readonly string[] = ['plain.kubevirt.io', DECKHOUSE_STREAM_PROTOCOL];

export const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

/** The subprotocol the api answers with: the first of the client's it knows. */
function pickProtocol(offered: Set<string>): string | false {
  for (const p of offered) if (STREAM_PROTOCOLS.includes(p)) return p;
  return false;
}

/** The websocket server for the clients' side of the api's streams. */
export function newStreamServer(): WebSocketServer {
  return new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    handleProtocols: pickProtocol,
  });
}

/**
 * Answers an HTTP status with a Status body on a connection that asked for an upgrade, and closes it: any
 * Status, the kernel's or the subresource API's (rest/status.ts), its code the answer's.
 */
export function refuseUpgrade(socket: Duplex, status: Readonly<Pick<Status, 'kind' | 'code'>>): void {
  const body = Buffer.from(JSON.stringify(status));
  const head = [
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head), body]), () => {
    socket.destroy();
  });
}

export interface StreamProxyContext {
  readonly wss: WebSocketServer;
  readonly tls: HandlerTls;
  readonly clock: Clock;
  readonly pingIntervalMs: number;
  readonly log: Logger;
  /** Open sessions, ended on shutdown. */
  readonly sessions: Set<RelaySession>;
  opened(kind: string, delta: 1 | -1): void;
}

export interface StreamTarget {
  readonly kind: 'console' | 'vnc' | 'portforward';
  readonly address: HandlerAddress;
  /** The handler's path for this VMI and kind. */
  readonly path: string;
}

export async function proxyStream(
  ctx: StreamProxyContext,
  t: StreamTarget,
  upgrade: { req: IncomingMessage; socket: Duplex; head: Buffer },
  log: Logger,
): Promise<void> {
  let handler: WebSocket;
  try {
    handler = await openHandlerStream(t.address, ctx.tls, t.path);
  } catch (err) {
    const status = err instanceof HandlerDialError ? (err.status ?? 500) : 500;
    const message = err instanceof Error ? err.message : String(err);
    log.warning('handler stream refused', { kind: t.kind, code: status, reason: message });
    refuseUpgrade(upgrade.socket, newStatus(status, message));
    return;
  }
  let client: WebSocket;
  try {
    client = await acceptUpgrade(ctx.wss, upgrade.req, upgrade.socket, upgrade.head);
  } catch (err) {
    handler.close(1000);
    log.v(2).info('client websocket upgrade failed', { reason: err });
    return;
  }
  const session = relayWebSocket(client, handler, {
    pingIntervalMs: ctx.pingIntervalMs,
    clock: ctx.clock,
    peerClosed: 'handler-closed',
  });
  ctx.sessions.add(session);
  ctx.opened(t.kind, 1);
  log.info('stream session started', { kind: t.kind });
  const end = await session.done;
  ctx.sessions.delete(session);
  ctx.opened(t.kind, -1);
  log.info('stream session ended', {
    kind: t.kind,
    reason: end.reason,
    code: end.code,
    bytesToClient: end.bytesToClient,
    bytesFromClient: end.bytesFromClient,
    ...(end.error !== undefined && { err: end.error }),
  });
}
