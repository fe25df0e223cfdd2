/**
 * Opening a console or VNC stream (kubevirt pkg/virt-handler/rest/console.go SerialHandler, VNCHandler): the
 * VMI (404); a 409 while a serial console is open for it (a clear error, where KubeVirt ends the open one);
 * for VNC with `?preserveSession=true` a 503 while a VNC session is open (KubeVirt after v1.6.2, KV@HEAD;
 * without it the newest VNC session wins as in v1.6.2, the older one closed with 1001); its socket (400);
 * then the session slot, the unix socket dialled without following a symlink (400 when what is there is
 * refused, 500 when it does not answer: answered before the upgrade, where KubeVirt can only drop the
 * upgraded connection), and the websocket upgrade. Refusals before the upgrade are plain HTTP answers on the
 * raw connection.
 * The session relays the websocket to the socket (lib/kernel/ws/relay.ts) as KubeVirt's raw streamer does: the
 * socket's bytes go out in binary frames of at most 10 KiB; an error drops the client's connection.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { acceptUpgrade } from '../../kernel/ws/accept.ts';
import { relayWebSocket, type RelaySession } from '../../kernel/ws/relay.ts';
import { connectBeneath, UnsafePathError } from '../../kernel/safepath/index.ts';
import { podPathText, type PodPath } from '../../rpc/index.ts';
import { consoleInUse, isRestError, noUnixSocket, vmiNotFound, type RestError } from './errors.ts';
import type { RestResolver } from './resolve.ts';
import { isStreamRoute, matchRoute, type StreamRoute } from './routes.ts';
import {
  REPLACED_CLOSE_CODE,
  REPLACED_CLOSE_REASON,
  SHUTDOWN_CLOSE_CODE,
  SHUTDOWN_CLOSE_REASON,
  type EndCause,
  type SessionSlots,
} from './sessions.ts';

const DIAL_TIMEOUT_MS = 5_000;
/** The largest frame sent to the client (kubevirt client-go kubevirt/typed/core/v1/websocket.go). */
export const WEBSOCKET_MESSAGE_BUFFER_SIZE = 10240;

export interface StreamContext {
  readonly resolver: RestResolver;
  readonly slots: SessionSlots;
  readonly wss: WebSocketServer;
  readonly log: Logger;
  readonly clock: Clock;
  readonly pingIntervalMs: number;
  answered(route: string, code: number): void;
}

export function refuse(socket: Duplex, e: RestError, allow?: string): void {
  const body = Buffer.from(e.message);
  const head = [
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${body.length}`,
    ...(allow === undefined ? [] : [`Allow: ${allow}`]),
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head), body]), () => {
    socket.destroy();
  });
}

/**
 * Connects to the VMI's socket in the launcher Pod within DIAL_TIMEOUT_MS, opened below the emptyDir without
 * following a symlink and checked to be a socket (lib/kernel/safepath connectBeneath): a symlink the tenant
 * planted there never relays the console to another socket on the host.
 */
export function dialUnix(at: PodPath, clock: Clock): Promise<Socket> {
  return connectBeneath(at.root, at.rel, { clock, timeoutMs: DIAL_TIMEOUT_MS });
}

/** The answer when the dial failed: refused (400, as KubeVirt's socket lookup), or not answering (500). */
export function dialFailure(at: PodPath, err: unknown): RestError {
  const path = podPathText(at);
  if (err instanceof UnsafePathError)
    return err.reason === 'not-found'
      ? noUnixSocket(path)
      : { status: 400, message: `refused unix socket ${path}: ${err.message}` };
  return { status: 500, message: `failed to dial unix socket ${path}: ${errorMessage(err)}` };
}

function endSession(s: RelaySession, cause: EndCause): void {
  if (cause === 'replaced') s.end(REPLACED_CLOSE_CODE, REPLACED_CLOSE_REASON);
  else s.end(SHUTDOWN_CLOSE_CODE, SHUTDOWN_CLOSE_REASON);
}

export function isWebsocketRequest(req: IncomingMessage): boolean {
  return (
    req.headers.upgrade?.toLowerCase() === 'websocket' &&
    typeof req.headers['sec-websocket-key'] === 'string' &&
    req.headers['sec-websocket-version'] === '13'
  );
}

interface Target {
  readonly route: StreamRoute;
  readonly vmi: VirtualMachineInstance;
  readonly path: PodPath;
}

/** Go's strconv.ParseBool true values; anything else (or a parse error) is false, as KubeVirt reads it. */
export function queryFlag(target: string, name: string): boolean {
  const q = target.indexOf('?');
  if (q < 0) return false;
  const v = new URLSearchParams(target.slice(q + 1)).get(name);
  return v !== null && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

const VNC_IN_USE: RestError = { status: 503, message: 'Active VNC connection. Request denied.' };

/** The refusal when the route's session slot is held and may not be taken over: any open serial console, an
 * open VNC session when the client asks to preserve it. */
function inUse(
  ctx: StreamContext,
  req: IncomingMessage,
  route: StreamRoute,
  vmi: VirtualMachineInstance,
): RestError | undefined {
  if (!ctx.slots.has(route, vmi.metadata.uid ?? '')) return undefined;
  if (route === 'console')
    return consoleInUse(
      vmi.metadata.namespace ?? '',
      vmi.metadata.name ?? '',
      (2 * ctx.pingIntervalMs) / 1000,
    );
  return queryFlag(req.url ?? '', 'preserveSession') ? VNC_IN_USE : undefined;
}

function target(ctx: StreamContext, req: IncomingMessage): Target | (RestError & { allow?: string }) {
  const m = matchRoute(req.method ?? '', req.url ?? '');
  if (!m.ok) return m.allow === undefined ? m : { ...m, allow: m.allow };
  if (!isStreamRoute(m.route)) return { status: 400, message: 'Bad Request\n' };
  const vmi = ctx.resolver.vmi(m.namespace, m.name);
  if (vmi === undefined) return vmiNotFound(m.namespace, m.name);
  const busy = inUse(ctx, req, m.route, vmi);
  if (busy !== undefined) return busy;
  const path = ctx.resolver.socket(vmi, m.route);
  if (isRestError(path)) return path;
  if (!isWebsocketRequest(req)) return { status: 400, message: 'Bad Request\n' };
  return { route: m.route, vmi, path };
}

export async function openStream(
  ctx: StreamContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => undefined);
  const routeLabel = matchRoute(req.method ?? '', req.url ?? '');
  const t = target(ctx, req);
  const label = routeLabel.ok ? routeLabel.route : 'unknown';
  if (!('vmi' in t)) {
    ctx.answered(label, t.status);
    refuse(socket, t, t.allow);
    return;
  }
  const meta = t.vmi.metadata;
  const log = ctx.log.with({ namespace: meta.namespace, name: meta.name, uid: meta.uid, kind: t.route });
  // The slot may end this session before it is open: then it ends as soon as it is.
  const state: { session?: RelaySession; ended?: EndCause } = {};
  const release = ctx.slots.take(t.route, meta.uid ?? '', (cause) => {
    if (state.session === undefined) state.ended = cause;
    else endSession(state.session, cause);
  });
  let unix: Socket;
  try {
    unix = await dialUnix(t.path, ctx.clock);
  } catch (err) {
    release();
    const refused = err instanceof UnsafePathError;
    log.warning(refused ? 'console socket refused' : 'console socket dial failed', {
      path: podPathText(t.path),
      reason: err,
    });
    const answer = dialFailure(t.path, err);
    ctx.answered(t.route, answer.status);
    refuse(socket, answer);
    return;
  }
  let ws: WebSocket;
  try {
    ws = await acceptUpgrade(ctx.wss, req, socket, head);
  } catch (err) {
    release();
    unix.destroy();
    ctx.answered(t.route, 400);
    log.v(2).info('console websocket upgrade failed', { reason: err });
    return;
  }
  ctx.answered(t.route, 101);
  const session = relayWebSocket(ws, unix, {
    pingIntervalMs: ctx.pingIntervalMs,
    clock: ctx.clock,
    peerClosed: 'socket-closed',
    frameBytes: WEBSOCKET_MESSAGE_BUFFER_SIZE,
    terminateOnError: true,
  });
  state.session = session;
  log.info('console session started');
  if (state.ended !== undefined) endSession(session, state.ended);
  const end = await session.done;
  release();
  log.info('console session ended', {
    reason: end.reason,
    bytesToClient: end.bytesToClient,
    bytesFromClient: end.bytesFromClient,
    pongs: end.pongs,
    ...(end.error !== undefined && { err: end.error }),
  });
}
