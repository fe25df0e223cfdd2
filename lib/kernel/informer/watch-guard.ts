/**
 * Runs one watch stream with an inactivity timeout: when nothing (not even a bookmark) arrives for
 * inactivityMs, the stream is aborted and reported as inactive. One timer per watch, re-armed lazily, so
 * a busy stream costs no timer work per event.
 */
import type { Clock, TimerHandle } from '../clock.ts';
import type { KubeObject, WatchEvent } from '../kube/types.ts';

export interface GuardedWatch<T extends KubeObject> {
  clock: Clock;
  inactivityMs: number;
  open: (signal: AbortSignal) => AsyncIterable<WatchEvent<T>>;
  /** Called per event; a throw ends the watch and propagates. */
  onEvent: (ev: WatchEvent<T>) => void;
  signal: AbortSignal;
}

export interface WatchOutcome {
  events: number;
  /** True when the inactivity timeout ended the watch. */
  inactive: boolean;
}

export async function watchWithInactivity<T extends KubeObject>(
  guardedWatch: GuardedWatch<T>,
): Promise<WatchOutcome> {
  const ctrl = new AbortController();
  const stop = (): void => {
    ctrl.abort(guardedWatch.signal.reason);
  };
  guardedWatch.signal.addEventListener('abort', stop, { once: true });
  const outcome: WatchOutcome = { events: 0, inactive: false };
  let last = guardedWatch.clock.now();
  let timer: TimerHandle | undefined;
  const arm = (ms: number): void => {
    timer = guardedWatch.clock.after(ms, () => {
      const idle = guardedWatch.clock.now() - last;
      if (idle < guardedWatch.inactivityMs) {
        arm(guardedWatch.inactivityMs - idle);
        return;
      }
      outcome.inactive = true;
      ctrl.abort(new Error('watch inactive'));
    });
  };
  arm(guardedWatch.inactivityMs);
  try {
    if (guardedWatch.signal.aborted) return outcome;
    for await (const ev of guardedWatch.open(ctrl.signal)) {
      last = guardedWatch.clock.now();
      outcome.events++;
      guardedWatch.onEvent(ev);
    }
    return outcome;
  } catch (err) {
    // the contract says an aborted watch ends quietly; tolerate one that throws instead
    if (outcome.inactive || guardedWatch.signal.aborted) return outcome;
    throw err;
  } finally {
    timer?.cancel();
    guardedWatch.signal.removeEventListener('abort', stop);
    ctrl.abort();
  }
}
