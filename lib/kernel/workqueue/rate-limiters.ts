/**
 * Rate limiters for the work queue (client-go `util/workqueue/default_rate_limiters.go` semantics).
 * `when(key)` records one more failure for key and says how long to wait before retrying it.
 */
import type { Clock } from '../clock.ts';

export interface RateLimiter<K = string> {
  /** Milliseconds to wait before the key may be processed again; counts as one retry. */
  when(key: K): number;
  /** Stops tracking the key (its next failure starts from scratch). */
  forget(key: K): void;
  /** How many times when() was called for the key since it was last forgotten. */
  retries(key: K): number;
}

/** Per-key exponential backoff: base * 2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = this.baseMs * 2 ** n;
    return Number.isFinite(delay) ? Math.min(delay, this.maxMs) : this.maxMs;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

export interface BucketRateLimiterOptions {
  /** Tokens added per second. */
  qps: number;
  /** Bucket size; the bucket starts full. */
  burst: number;
  clock: Clock;
}

/**
 * A global token bucket shared by all keys. Every when() reserves one token, even when the bucket is
 * empty, and returns how long until that reserved token exists (golang.org/x/time/rate `Reserve().Delay()`).
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(opts: BucketRateLimiterOptions) {
    this.qps = opts.qps;
    this.burst = opts.burst;
    this.clock = opts.clock;
    this.tokens = opts.burst;
    this.last = opts.clock.now();
  }

  when(): number {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    const refilled = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.tokens = refilled - 1;
    this.last = Math.max(now, this.last);
    return this.tokens < 0 ? (-this.tokens * 1000) / this.qps : 0;
  }

  forget(): void {
    // The bucket is global: nothing is tracked per key.
  }

  retries(): number {
    return 0;
  }
}

/** The worst (longest) delay of several limiters; every limiter sees every call. */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(key: K): number {
    return this.limiters.reduce((max, l) => Math.max(max, l.when(key)), 0);
  }

  forget(key: K): void {
    for (const l of this.limiters) l.forget(key);
  }

  retries(key: K): number {
    return this.limiters.reduce((max, l) => Math.max(max, l.retries(key)), 0);
  }
}

/** client-go's default: max(per-key exponential 5 ms → 1000 s, global 10 qps with burst 100). */
export function defaultControllerRateLimiter<K = string>(clock: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1_000_000),
    new BucketRateLimiter<K>({ qps: 10, burst: 100, clock }),
  );
}
