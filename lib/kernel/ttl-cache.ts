/**
 * A bounded map whose entries expire: each value lives for the TTL it was stored with, time comes from a Clock,
 * and at the size bound the oldest entry goes first, so no caller can grow it without limit. The answers of
 * authorization reviews are kept in it (client-go's cache of webhook token and authorization answers).
 */
import type { Clock } from './clock.ts';

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value stored under key, unless it has expired (then it is dropped). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores value for ttlMs (nothing when ttlMs or the size bound is 0); a key set again becomes the youngest. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0 || this.maxEntries <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }
}
