/**
 * One console or VNC session through the api: the client's websocket (from kube-apiserver's proxy or the
 * Deckhouse virtualization-api) relayed to the handler's websocket for the VMI. Payloads pass unchanged as binary
 * frames both ways (KubeVirt's raw streamer copies the bytes after both upgrades; relaying frames does the same
 * for the payload and lets the api close each side with a proper close frame). The api pings the client every
 * pingIntervalMs (so idle sessions survive proxies) and ends a session whose pong is overdue; the handler pings
 * the api, and ws answers. Backpressure both ways: a side stops being read while too much is queued towards the
 * other. Either side closing closes the other with the same code where the code may be sent.
 */
import type { RawData, WebSocket } from 'ws';
import type { Clock } from '../../kernel/clock.ts';
import { keepAlive } from '../../kernel/ws/keepalive.ts';

export const DEFAULT_CLIENT_PING_INTERVAL_MS = 30_000;
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

type RelayEndReason = 'client-closed' | 'handler-closed' | 'pong-overdue' | 'ended' | 'error';

interface RelayEnd {
  readonly reason: RelayEndReason;
  readonly code: number;
  readonly bytesToClient: number;
  readonly bytesFromClient: number;
  readonly error?: unknown;
}

export interface RelaySession {
  /** Ends the session from the api with this close code and reason on both sides (graceful shutdown). */
  end(code: number, reason: string): void;
  readonly done: Promise<RelayEnd>;
}

/** A close code another peer may be sent (RFC 6455 7.4: 1005, 1006 and 1015 are never on the wire). */
function sendableCloseCode(code: number): number {
  const reserved = code === 1004 || code === 1005 || code === 1006 || code === 1015;
  return reserved || code < 1000 || code > 4999 ? 1000 : code;
}

function bytesOf(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  return Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
}

/** Sends what `from` receives on `to`, pausing `from` while more than HIGH_WATER is queued on `to`. */
function forward(from: WebSocket, to: WebSocket, count: (n: number) => void): void {
  let queued = 0;
  from.on('message', (raw: RawData, isBinary: boolean) => {
    if (!isBinary || to.readyState !== to.OPEN) return;
    const data = bytesOf(raw);
    count(data.length);
    queued += data.length;
    to.send(data, { binary: true }, () => {
      queued -= data.length;
      if (queued < LOW_WATER && from.isPaused) from.resume();
    });
    if (queued > HIGH_WATER) from.pause();
  });
}

export function relayStreams(
  client: WebSocket,
  handler: WebSocket,
  o: { pingIntervalMs: number; clock: Clock },
): RelaySession {
  let toClient = 0;
  let fromClient = 0;
  let finished = false;
  let finish: (e: RelayEnd) => void = () => undefined;
  const done = new Promise<RelayEnd>((resolve) => {
    finish = resolve;
  });

  const closeSide = (ws: WebSocket, code: number, reason: string, hard: boolean): void => {
    if (hard) ws.terminate();
    else if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
  };
  const stop = (reason: RelayEndReason, code: number, text: string, error?: unknown): void => {
    if (finished) return;
    finished = true;
    alive.cancel();
    const sent = sendableCloseCode(code);
    closeSide(client, sent, text, reason === 'pong-overdue');
    closeSide(handler, sent, text, false);
    finish({
      reason,
      code: sent,
      bytesToClient: toClient,
      bytesFromClient: fromClient,
      ...(error !== undefined && { error }),
    });
  };

  const alive = keepAlive(client, {
    intervalMs: o.pingIntervalMs,
    clock: o.clock,
    onOverdue: () => {
      stop('pong-overdue', 1011, 'pong overdue');
    },
  });

  forward(handler, client, (n) => (toClient += n));
  forward(client, handler, (n) => (fromClient += n));
  client.on('close', (code: number, reason: Buffer) => {
    stop('client-closed', code, reason.toString());
  });
  handler.on('close', (code: number, reason: Buffer) => {
    stop('handler-closed', code, reason.toString());
  });
  client.on('error', (err) => {
    stop('error', 1011, '', err);
  });
  handler.on('error', (err) => {
    stop('error', 1011, '', err);
  });
  if (client.readyState !== client.OPEN) stop('client-closed', 1000, '');
  else if (handler.readyState !== handler.OPEN) stop('handler-closed', 1000, '');
  return {
    end: (code, reason): void => {
      stop('ended', code, reason);
    },
    done,
  };
}
