/**
 * libvirt's keepalive rule on our side of a connection (src/rpc/virkeepalive.c): after intervalMs without
 * any packet from the peer we send a PING, then one more every intervalMs; when count PINGs in a row went
 * unanswered by any packet, the peer is dead. Time comes from the injected Clock.
 */
import type { Clock, TimerHandle } from '../kernel/clock.ts';

export interface KeepAliveOptions {
  intervalMs: number;
  count: number;
  clock: Clock;
  sendPing: () => void;
  onDead: () => void;
}

export class KeepAlive {
  private lastSeen = 0;
  private left = 0;
  private timer: TimerHandle | undefined;

  constructor(private readonly o: KeepAliveOptions) {}

  start(): void {
    this.stop();
    this.seen();
    this.schedule(this.o.intervalMs);
  }

  /** Any packet from the peer proves it alive. */
  seen(): void {
    this.lastSeen = this.o.clock.now();
    this.left = this.o.count;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  private schedule(ms: number): void {
    this.timer = this.o.clock.after(ms, () => {
      this.tick();
    });
  }

  private tick(): void {
    const idle = this.o.clock.now() - this.lastSeen;
    if (idle < this.o.intervalMs) {
      this.schedule(this.o.intervalMs - idle);
      return;
    }
    if (this.left <= 0) {
      this.timer = undefined;
      this.o.onDead();
      return;
    }
    this.left--;
    this.schedule(this.o.intervalMs);
    this.o.sendPing();
  }
}
