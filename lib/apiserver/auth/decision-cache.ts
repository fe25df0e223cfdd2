/**
 * A small TTL cache of authorization answers keyed by the whole review, so a burst of calls for the same
 * user and object (a console reconnecting, a VNC client polling) asks the cluster once. Allowed and denied
 * answers each live for their own TTL; at the size bound the oldest entry goes first (the kernel's TtlCache).
 */
import type { Clock } from '../../kernel/clock.ts';
import { TtlCache } from '../../kernel/ttl-cache.ts';

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

export class DecisionCache {
  private readonly entries: TtlCache<Decision>;
  private readonly opts: DecisionCacheOptions;

  constructor(clock: Clock, opts: Partial<DecisionCacheOptions> = {}) {
    this.opts = { ...DEFAULT_DECISION_CACHE, ...opts };
    this.entries = new TtlCache(clock, this.opts.maxEntries);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Decision | undefined {
    return this.entries.get(key);
  }

  set(key: string, decision: Decision): void {
    this.entries.set(key, decision, decision.allowed ? this.opts.allowedTtlMs : this.opts.deniedTtlMs);
  }
}
