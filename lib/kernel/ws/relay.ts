/**
 * A client's websocket relayed to a peer, shared by the streaming servers: the handler relays it to the VMI's
 * serial console or VNC unix socket, the api to the handler's websocket for the VMI. The payload of each binary
 * frame from the client goes to the peer, other data frames are ignored; what the peer gives goes to the client
 * as binary frames (sliced to at most frameBytes when given). The client is pinged every pingIntervalMs
 * (keepalive.ts) and a session whose pong is overdue ends. Backpressure both ways: a side stops being read while
 * more than HIGH_WATER bytes are queued towards a websocket, until fewer than LOW_WATER are, or while a socket's
 * write buffer is full, until it drains. Either side closing ends the session and closes the other: a websocket
 * with a close frame (the same code where the code may be sent), a socket with a half-close.
 */
import { Socket } from 'node:net';
import type { RawData } from 'ws';
import type { Clock } from '../clock.ts';
import { keepAlive, type Pingable } from './keepalive.ts';

/** What the relay uses of a websocket (ws's WebSocket is one). */
export interface RelayWebSocket extends Pingable {
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  readonly isPaused: boolean;
  on(event: 'message', listener: (raw: RawData, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'pong', listener: () => void): unknown;
  pause(): void;
  resume(): void;
  send(data: Buffer, options: { binary: boolean }, cb: (err?: Error) => void): void;
  close(code: number, reason: string): void;
  terminate(): void;
}

export const DEFAULT_PING_INTERVAL_MS = 30_000;
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

/** Why a session ended; `P` is the peer's closing, named by the caller (a socket, the handler). */
type RelayEndReason<P extends string> = 'client-closed' | P | 'pong-overdue' | 'ended' | 'error';

interface RelayEnd<P extends string = string> {
  readonly reason: RelayEndReason<P>;
  /** The close code sent to the websockets still open. */
  readonly code: number;
  readonly bytesToClient: number;
  readonly bytesFromClient: number;
  readonly pongs: number;
  readonly error?: unknown;
}

export interface RelaySession<P extends string = string> {
  /** Ends the session from the server side with this close code and reason (a takeover, a shutdown). */
  end(code: number, reason: string): void;
  readonly done: Promise<RelayEnd<P>>;
}

export interface RelayOptions<P extends string> {
  readonly pingIntervalMs: number;
  readonly clock: Clock;
  /** The end reason when the peer closes. */
  readonly peerClosed: P;
  /** The largest frame sent to the client; without it each chunk of the peer's goes as one frame. */
  readonly frameBytes?: number;
  /** An error drops the client's connection, as an overdue pong does, instead of sending it a close frame. */
  readonly terminateOnError?: boolean;
}

/** A close code another peer may be sent (RFC 6455 7.4: 1005, 1006 and 1015 are never on the wire). */
export function sendableCloseCode(code: number): number {
  const reserved = code === 1004 || code === 1005 || code === 1006 || code === 1015;
  return reserved || code < 1000 || code > 4999 ? 1000 : code;
}

/** Slices of at most `size` bytes (views, no copy). */
export function frames(chunk: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < chunk.length; at += size) out.push(chunk.subarray(at, at + size));
  return out;
}

function bytesOf(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  return Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
}

/** One end of a relay, as the relay drives it. */
interface Side {
  /** Each payload this side gives: a websocket's binary frames, a socket's chunks. */
  onBytes(cb: (data: Buffer) => void): void;
  onClosed(cb: (code: number, reason: string) => void): void;
  onError(cb: (err: unknown) => void): void;
  readonly open: boolean;
  readonly paused: boolean;
  pause(): void;
  resume(): void;
  /** Sends bytes to this side; `source` is not read while this side has too much to take. */
  send(data: Buffer, source: Side): void;
  close(code: number, reason: string, hard: boolean): void;
}

function websocketSide(ws: RelayWebSocket, frameBytes?: number): Side {
  let queued = 0;
  return {
    onBytes: (cb): void => {
      ws.on('message', (raw: RawData, isBinary: boolean) => {
        if (isBinary) cb(bytesOf(raw));
      });
    },
    onClosed: (cb): void => {
      ws.on('close', (code: number, reason: Buffer) => {
        cb(code, reason.toString());
      });
    },
    onError: (cb): void => {
      ws.on('error', cb);
    },
    get open(): boolean {
      return ws.readyState === ws.OPEN;
    },
    get paused(): boolean {
      return ws.isPaused;
    },
    pause: (): void => {
      ws.pause();
    },
    resume: (): void => {
      ws.resume();
    },
    send: (data, source): void => {
      for (const f of frameBytes === undefined ? [data] : frames(data, frameBytes)) {
        queued += f.length;
        ws.send(f, { binary: true }, () => {
          queued -= f.length;
          if (queued < LOW_WATER && source.paused) source.resume();
        });
      }
      if (queued > HIGH_WATER) source.pause();
    },
    close: (code, reason, hard): void => {
      if (hard) ws.terminate();
      else if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    },
  };
}

function socketSide(socket: Socket): Side {
  return {
    onBytes: (cb): void => {
      socket.on('data', cb);
    },
    onClosed: (cb): void => {
      socket.on('end', () => {
        cb(1000, '');
      });
      socket.on('close', () => {
        cb(1000, '');
      });
    },
    onError: (cb): void => {
      socket.on('error', cb);
    },
    get open(): boolean {
      return !socket.destroyed;
    },
    get paused(): boolean {
      return socket.isPaused();
    },
    pause: (): void => {
      socket.pause();
    },
    resume: (): void => {
      socket.resume();
    },
    send: (data, source): void => {
      if (socket.write(data)) return;
      source.pause();
      socket.once('drain', () => {
        source.resume();
      });
    },
    close: (): void => {
      socket.destroySoon();
    },
  };
}

export function relayWebSocket<P extends string>(
  ws: RelayWebSocket,
  to: RelayWebSocket | Socket,
  o: RelayOptions<P>,
): RelaySession<P> {
  const client = websocketSide(ws, o.frameBytes);
  const peer = to instanceof Socket ? socketSide(to) : websocketSide(to);
  let toClient = 0;
  let fromClient = 0;
  let finished = false;
  let finish: (e: RelayEnd<P>) => void = () => undefined;
  const done = new Promise<RelayEnd<P>>((resolve) => {
    finish = resolve;
  });

  const stop = (reason: RelayEndReason<P>, code: number, text: string, error?: unknown): void => {
    if (finished) return;
    finished = true;
    alive.cancel();
    const sent = sendableCloseCode(code);
    const hard = reason === 'pong-overdue' || (reason === 'error' && o.terminateOnError === true);
    client.close(sent, text, hard);
    peer.close(sent, text, false);
    finish({
      reason,
      code: sent,
      bytesToClient: toClient,
      bytesFromClient: fromClient,
      pongs: alive.pongs,
      ...(error !== undefined && { error }),
    });
  };
  const alive = keepAlive(ws, {
    intervalMs: o.pingIntervalMs,
    clock: o.clock,
    onOverdue: (): void => {
      stop('pong-overdue', 1011, 'pong overdue');
    },
  });

  const forward = (from: Side, dest: Side, count: (n: number) => void): void => {
    from.onBytes((data) => {
      if (!dest.open) return;
      count(data.length);
      dest.send(data, from);
    });
  };
  forward(peer, client, (n) => (toClient += n));
  forward(client, peer, (n) => (fromClient += n));
  client.onClosed((code, reason) => {
    stop('client-closed', code, reason);
  });
  peer.onClosed((code, reason) => {
    stop(o.peerClosed, code, reason);
  });
  const failed = (err: unknown): void => {
    stop('error', 1011, '', err);
  };
  client.onError(failed);
  peer.onError(failed);
  // Either side may have gone during the upgrades, before these listeners.
  if (!client.open) stop('client-closed', 1000, '');
  else if (!peer.open) stop(o.peerClosed, 1000, '');
  return {
    end: (code, reason): void => {
      stop('ended', code, reason);
    },
    done,
  };
}
