/**
 * Exponential backoff with jitter for the reflector's retries (client-go reflector uses 800 ms → 30 s and
 * resets after 2 minutes without a failure). Delays jitter downwards, so they never exceed maxMs and many
 * clients failing together spread out even at the cap: delay ∈ (base·(1-jitter), base], base = min(initial·2ⁿ, max).
 */
import type { Clock } from '../clock.ts';

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Fraction of the base delay removed at random, in [0, 1). */
  jitter?: number;
  /** A failure after this long without one starts again from initialMs. */
  resetAfterMs?: number;
  /** Random source in [0, 1); injectable for tests. */
  random?: () => number;
}

const DEFAULT_BACKOFF = { initialMs: 800, maxMs: 30_000, jitter: 0.5, resetAfterMs: 120_000 } as const;

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly random: () => number;
  private base: number;
  private lastFailure: number | undefined;

  constructor(
    private readonly clock: Clock,
    opts: BackoffOptions = {},
  ) {
    this.initialMs = opts.initialMs ?? DEFAULT_BACKOFF.initialMs;
    this.maxMs = opts.maxMs ?? DEFAULT_BACKOFF.maxMs;
    this.jitter = opts.jitter ?? DEFAULT_BACKOFF.jitter;
    this.resetAfterMs = opts.resetAfterMs ?? DEFAULT_BACKOFF.resetAfterMs;
    this.random = opts.random ?? Math.random;
    this.base = this.initialMs;
  }

  /** The delay to wait after a failure now; each call doubles the next base up to maxMs. */
  next(): number {
    const now = this.clock.now();
    if (this.lastFailure !== undefined && now - this.lastFailure >= this.resetAfterMs) this.reset();
    this.lastFailure = now;
    const base = this.base;
    this.base = Math.min(this.base * 2, this.maxMs);
    return Math.ceil(base * (1 - this.jitter * this.random()));
  }

  reset(): void {
    this.base = this.initialMs;
    this.lastFailure = undefined;
  }
}
