/**
 * One streaming session: bytes between a client websocket and a unix socket (the VMI's serial console or VNC),
 * as KubeVirt's raw streamer does (kubevirt client-go kubevirt/typed/core/v1/websocket.go): what the socket gives
 * goes out as binary frames of at most 10 KiB, the payload of each binary frame from the client is written to the
 * socket, other data frames are ignored. The server pings every pingIntervalMs; a ping still unanswered at the
 * next tick ends the session. Backpressure both ways: the socket pauses while too much is queued on the
 * websocket, the websocket pauses while the socket's write buffer is full. Ending closes both sides: a close
 * frame (1000, or the code given) on the websocket and a half-close on the socket.
 */
import type { Socket } from 'node:net';
import type { RawData } from 'ws';
import type { Clock } from '../../kernel/clock.ts';
import { keepAlive, type Pingable } from '../../kernel/ws/keepalive.ts';

export const WEBSOCKET_MESSAGE_BUFFER_SIZE = 10240;
export const DEFAULT_PING_INTERVAL_MS = 30_000;
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

export type EndReason = 'client-closed' | 'socket-closed' | 'pong-overdue' | 'ended' | 'error';

export interface SessionEnd {
  readonly reason: EndReason;
  readonly bytesToClient: number;
  readonly bytesFromClient: number;
  readonly pongs: number;
  readonly error?: unknown;
}

export interface Session {
  /** Ends the session from the server side with this close code and reason. */
  end(code: number, reason: string): void;
  readonly done: Promise<SessionEnd>;
}

export interface RelayOptions {
  readonly pingIntervalMs: number;
  readonly clock: Clock;
}

/** Slices of at most `size` bytes (views, no copy). */
export function frames(chunk: Buffer, size = WEBSOCKET_MESSAGE_BUFFER_SIZE): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < chunk.length; at += size) out.push(chunk.subarray(at, at + size));
  return out;
}

function bytesOf(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  return Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
}

/** What the relay uses of the client's websocket (ws's WebSocket is one). */
export interface RelaySocket extends Pingable {
  readonly OPEN: number;
  readonly readyState: number;
  send(data: Buffer, options: { binary: boolean }, cb: (err?: Error) => void): void;
  close(code: number, reason: string): void;
  terminate(): void;
  pause(): void;
  resume(): void;
  on(event: 'pong' | 'close', listener: () => void): unknown;
  on(event: 'message', listener: (raw: RawData, isBinary: boolean) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

export function relay(ws: RelaySocket, unix: Socket, o: RelayOptions): Session {
  let toClient = 0;
  let fromClient = 0;
  let inflight = 0;
  let finish: (e: SessionEnd) => void = () => undefined;
  let finished = false;
  const done = new Promise<SessionEnd>((resolve) => {
    finish = resolve;
  });

  const stop = (reason: EndReason, code: number, text: string, error?: unknown): void => {
    if (finished) return;
    finished = true;
    alive.cancel();
    unix.destroySoon();
    if (reason === 'pong-overdue' || reason === 'error') ws.terminate();
    else if (ws.readyState === ws.OPEN) ws.close(code, text);
    finish({
      reason,
      bytesToClient: toClient,
      bytesFromClient: fromClient,
      pongs: alive.pongs,
      ...(error !== undefined && { error }),
    });
  };
  const alive = keepAlive(ws, {
    intervalMs: o.pingIntervalMs,
    clock: o.clock,
    onOverdue: () => {
      stop('pong-overdue', 1011, 'pong overdue');
    },
  });
  unix.on('data', (chunk: Buffer) => {
    for (const f of frames(chunk)) {
      inflight += f.length;
      toClient += f.length;
      ws.send(f, { binary: true }, () => {
        inflight -= f.length;
        if (inflight < LOW_WATER && unix.isPaused()) unix.resume();
      });
    }
    if (inflight > HIGH_WATER) unix.pause();
  });
  ws.on('message', (raw: RawData, isBinary: boolean) => {
    if (!isBinary) return;
    const data = bytesOf(raw);
    fromClient += data.length;
    if (!unix.write(data)) {
      ws.pause();
      unix.once('drain', () => {
        ws.resume();
      });
    }
  });
  unix.on('end', () => {
    stop('socket-closed', 1000, '');
  });
  unix.on('close', () => {
    stop('socket-closed', 1000, '');
  });
  unix.on('error', (err) => {
    stop('error', 1011, '', err);
  });
  ws.on('close', () => {
    stop('client-closed', 1000, '');
  });
  ws.on('error', (err) => {
    stop('error', 1011, '', err);
  });
  // The socket may have gone during the websocket handshake, before these listeners.
  if (unix.destroyed) stop('socket-closed', 1000, '');
  return {
    end: (code, reason): void => {
      stop('ended', code, reason);
    },
    done,
  };
}
