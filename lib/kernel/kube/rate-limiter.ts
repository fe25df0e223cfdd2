/**
 * Client-side token bucket (client-go's flowcontrol QPS/burst): up to `burst` calls go out at once, then
 * `qps` per second. Each call reserves a token, possibly going into debt, and sleeps until the debt is
 * paid off, so waiters leave in arrival order without a queue. Time comes from the injected Clock.
 */
import type { Clock } from '../clock.ts';

export interface RateLimiterOptions {
  /** Tokens added per second; 0 or less means no limit. */
  qps: number;
  burst: number;
  clock: Clock;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;

  constructor(opts: RateLimiterOptions) {
    this.qps = opts.qps;
    this.burst = Math.max(1, opts.burst);
    this.clock = opts.clock;
    this.tokens = this.burst;
    this.last = opts.clock.now();
  }

  /** Resolves when the caller may send; rejects with the signal's reason if it aborts while waiting. */
  async take(signal?: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait <= 0) return;
    try {
      await this.clock.sleep(wait, signal);
    } catch (err) {
      this.tokens += 1; // give the unused token back
      throw err;
    }
  }

  /** Takes one token now and returns how long (ms) the caller must wait before using it. */
  reserve(): number {
    if (this.qps <= 0) return 0;
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }
}
