/** Injectable time: production code never calls Date.now() or setTimeout directly where tests need control. */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls fn after ms; the returned handle cancels it. Never keeps the process alive on its own. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Resolves after ms, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return {
      cancel: (): void => {
        clearTimeout(t);
      },
    };
  },
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(t);
        reject(signal?.reason as Error);
      };
      const t = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

/** A manual clock for tests: time moves only through advance(). */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): TimerHandle {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.push(p);
    return { cancel: () => (this.pending = this.pending.filter((x) => x !== p)) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const h = this.after(ms, resolve);
      signal?.addEventListener(
        'abort',
        () => {
          h.cancel();
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  /** Number of timers not yet fired. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Moves time forward, firing due timers in order (timers added while firing run too if due). */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = target;
  }
}
