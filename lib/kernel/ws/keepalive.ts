/**
 * Websocket keepalive from the server side, shared by every streaming server (the handler's REST server, the
 * api's stream proxy): a ping every intervalMs; a ping still unanswered at the next tick calls onOverdue once
 * and stops. `pongs` counts the answers. Time from the injected Clock.
 */
import type { Clock, TimerHandle } from '../clock.ts';

export interface Keepalive {
  readonly pongs: number;
  cancel(): void;
}

/** What the keepalive uses of a websocket (ws's WebSocket is one). */
export interface Pingable {
  ping(): void;
  on(event: 'pong', listener: () => void): unknown;
}

export function keepAlive(
  ws: Pingable,
  o: { readonly intervalMs: number; readonly clock: Clock; readonly onOverdue: () => void },
): Keepalive {
  let awaitingPong = false;
  let pongs = 0;
  let timer: TimerHandle | undefined;
  const tick = (): void => {
    if (awaitingPong) {
      timer = undefined;
      o.onOverdue();
      return;
    }
    awaitingPong = true;
    ws.ping();
    timer = o.clock.after(o.intervalMs, tick);
  };
  timer = o.clock.after(o.intervalMs, tick);
  ws.on('pong', () => {
    awaitingPong = false;
    pongs++;
  });
  return {
    get pongs(): number {
      return pongs;
    },
    cancel: (): void => {
      timer?.cancel();
      timer = undefined;
    },
  };
}
