/**
 * Copies bytes between a local byte stream (an accepted TCP connection, or stdin/stdout for --stdio) and a
 * portforward websocket, one binary message per chunk, with back-pressure both ways; like the io.Copy pair of
 * KubeVirt's portforward tcp.go, the first side to end ends both. The websocket is closed with 1000 after what
 * was queued, so the last bytes are not lost; `stop` does the same from outside (an interrupt).
 */
import type { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Clock } from '../../kernel/clock.ts';

/** Above this many bytes queued toward the API server, stop reading the local side. */
const HIGH_WATER = 1 << 20;
/** How long a closing websocket may take to answer the close frame before it is dropped. */
const CLOSE_GRACE_MS = 1000;

export interface LocalSide {
  readonly input: Readable;
  readonly output: Writable;
  /** Called once when the bridge ends (the socket ended or destroyed; stdin left alone). */
  readonly release: () => void;
}

type BridgeEnd =
  { readonly by: 'local' } | { readonly by: 'remote'; readonly code: number; readonly reason: string };

export interface Bridge {
  readonly done: Promise<BridgeEnd>;
  stop(): void;
}

/** Closes with 1000 after what is queued; a server that does not answer the close in time is cut off. */
export function closeSoon(ws: WebSocket, clock: Clock): void {
  if (ws.readyState === ws.CLOSED) return;
  ws.close(1000);
  const timer = clock.after(CLOSE_GRACE_MS, () => {
    ws.terminate();
  });
  ws.once('close', () => {
    timer.cancel();
  });
}

export function bridge(local: LocalSide, ws: WebSocket, clock: Clock): Bridge {
  const { input, output } = local;
  let ended: BridgeEnd | undefined;
  let localDone = false;
  let resolveDone: (end: BridgeEnd) => void = () => undefined;
  const done = new Promise<BridgeEnd>((resolve) => {
    resolveDone = resolve;
  });
  const onData = (chunk: Buffer): void => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true }, () => {
      if (input.isPaused() && ws.bufferedAmount < HIGH_WATER && ended === undefined) input.resume();
    });
    if (ws.bufferedAmount >= HIGH_WATER) input.pause();
  };
  const onMessage = (data: Buffer): void => {
    if (!output.writable) return;
    if (!output.write(data)) {
      ws.pause();
      output.once('drain', () => {
        ws.resume();
      });
    }
  };
  const finish = (end: BridgeEnd): void => {
    if (ended !== undefined) return;
    ended = end;
    input.off('data', onData);
    input.off('end', onLocalEnd);
    input.off('close', onLocalEnd);
    input.pause();
    local.release();
    resolveDone(end);
  };
  // The local side is done sending: what was queued still goes out, then the close frame; answers that arrive
  // before the server's close are still written.
  const onLocalEnd = (): void => {
    if (ended !== undefined || localDone) return;
    localDone = true;
    input.off('data', onData);
    closeSoon(ws, clock);
  };
  input.on('data', onData);
  input.once('end', onLocalEnd);
  input.once('close', onLocalEnd);
  ws.on('message', onMessage);
  ws.on('error', () => undefined);
  ws.once('close', (code: number, reason: Buffer) => {
    ws.off('message', onMessage);
    finish(localDone ? { by: 'local' } : { by: 'remote', code, reason: reason.toString('utf8') });
  });
  input.resume();
  return {
    done,
    stop: (): void => {
      onLocalEnd();
    },
  };
}
