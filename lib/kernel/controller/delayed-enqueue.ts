/**
 * Collects wake-ups of a key for a short while before handing it to the queue, so a burst of events (a VMI
 * created, then moved to Scheduling a moment later) costs one sync, and one status write, instead of several.
 * The first event of a burst starts the timer: a key waits at most delayMs.
 */
import type { Clock, TimerHandle } from '../clock.ts';

export class DelayedEnqueue {
  private readonly pending = new Map<string, TimerHandle>();

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly add: (key: string) => void,
  ) {}

  readonly enqueue = (key: string): void => {
    if (this.delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.set(
      key,
      this.clock.after(this.delayMs, () => {
        this.pending.delete(key);
        this.add(key);
      }),
    );
  };

  /** Drops every pending wake-up (on shutdown). */
  cancelAll(): void {
    for (const t of this.pending.values()) t.cancel();
    this.pending.clear();
  }
}
