/**
 * Remembers, per key, the resourceVersion an object had in the cache when this controller last wrote it. Until
 * the cache shows a different version, a sync would work from a state the controller already changed: it
 * would repeat the write and get a 409. Such syncs are skipped; the watch event of the write wakes the key
 * again (the role KubeVirt's vmiExpectations play around its VMI updates). Entries expire after ttlMs so a
 * lost event cannot park a key for good.
 */
import type { Clock } from '../clock.ts';

const DEFAULT_TTL_MS = 60_000;

export class StaleCacheGuard {
  private readonly written = new Map<string, { rv: string; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = DEFAULT_TTL_MS,
  ) {}

  /** Records a successful write made from the cached version rv. */
  wrote(key: string, rv: string | undefined): void {
    if (rv !== undefined) this.written.set(key, { rv, at: this.clock.now() });
  }

  /** True when the cache still holds the version the last write started from. */
  isStale(key: string, cachedRv: string | undefined): boolean {
    const w = this.written.get(key);
    if (w === undefined) return false;
    if (w.rv === cachedRv && this.clock.now() - w.at < this.ttlMs) return true;
    this.written.delete(key);
    return false;
  }

  forget(key: string): void {
    this.written.delete(key);
  }
}
