/**
 * A small TTL cache of authorization answers keyed by the whole review, so a burst of calls for the same
 * user and object (a console reconnecting, a VNC client polling) asks the cluster once. Allowed and denied
 * answers each live for their own TTL; at the size bound the oldest entry goes first. Time comes from a Clock.
 */
import type { Clock } from '../../kernel/clock.ts';

/** An authorization answer; `reason` is the authorizer's, possibly empty. */
export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

export interface DecisionCacheOptions {
  readonly allowedTtlMs: number;
  readonly deniedTtlMs: number;
  readonly maxEntries: number;
}

const DEFAULT_DECISION_CACHE: DecisionCacheOptions = Object.freeze({
  allowedTtlMs: 10_000,
  deniedTtlMs: 10_000,
  maxEntries: 1024,
});

interface Entry {
  readonly decision: Decision;
  readonly expiresAt: number;
}

export class DecisionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly opts: DecisionCacheOptions;

  constructor(
    private readonly clock: Clock,
    opts: Partial<DecisionCacheOptions> = {},
  ) {
    this.opts = { ...DEFAULT_DECISION_CACHE, ...opts };
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Decision | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.decision;
  }

  set(key: string, decision: Decision): void {
    const ttl = decision.allowed ? this.opts.allowedTtlMs : this.opts.deniedTtlMs;
    if (ttl <= 0 || this.opts.maxEntries <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { decision, expiresAt: this.clock.now() + ttl });
  }
}
