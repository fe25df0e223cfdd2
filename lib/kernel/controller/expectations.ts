/**
 * Controller expectations (kubevirt `pkg/controller/expectations.go`): a controller records how many
 * creations/deletions it has issued before writing, informer handlers lower the counts as they observe
 * them, and the scale step waits until the counts reach zero or 5 minutes pass.
 */
import type { Clock } from '../clock.ts';

/** After this, unfulfilled expectations count as satisfied (a lost watch event must not stall a controller). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

export interface Expectation {
  add: number;
  del: number;
  /** When the expectations were set (ms since the epoch, by the Clock). */
  timestamp: number;
}

export class ControllerExpectations {
  private readonly store = new Map<string, Expectation>();

  constructor(private readonly clock: Clock) {}

  /** A copy of the expectations of key, if any. */
  getExpectations(key: string): Expectation | undefined {
    const exp = this.store.get(key);
    return exp && { ...exp };
  }

  /** Replaces any expectations of key and restarts its timeout. */
  setExpectations(key: string, add: number, del: number): void {
    this.store.set(key, { add, del, timestamp: this.clock.now() });
  }

  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** Adds to existing expectations (no-op when none are recorded); the timeout is not restarted. */
  raiseExpectations(key: string, add: number, del: number): void {
    const exp = this.store.get(key);
    if (!exp) return;
    exp.add += add;
    exp.del += del;
  }

  /** Subtracts from existing expectations, e.g. for writes the API refused (they will never be observed). */
  lowerExpectations(key: string, add: number, del: number): void {
    this.raiseExpectations(key, -add, -del);
  }

  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }

  /** True when nothing is recorded for key, when the counts reached zero, or when they expired. */
  satisfiedExpectations(key: string): boolean {
    const exp = this.store.get(key);
    if (!exp) return true;
    if (exp.add <= 0 && exp.del <= 0) return true;
    return this.clock.now() - exp.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  deleteExpectations(key: string): void {
    this.store.delete(key);
  }

  /** Sum of the creations still expected over all keys. */
  allPendingCreations(): number {
    let sum = 0;
    for (const exp of this.store.values()) sum += exp.add;
    return sum;
  }
}

/**
 * Expectations that remember which uids are expected to go away, so a graceful deletion (an update
 * setting deletionTimestamp) and the final delete event are not counted twice.
 */
export class UIDTrackingExpectations {
  private readonly uids = new Map<string, Set<string>>();

  constructor(readonly expectations: ControllerExpectations) {}

  getUIDs(key: string): ReadonlySet<string> | undefined {
    return this.uids.get(key);
  }

  /** Replaces the expected deletions of key by these uids (and their count); creations are reset to 0. */
  expectDeletions(key: string, uids: readonly string[]): void {
    const set = new Set(uids);
    this.uids.set(key, set);
    this.expectations.expectDeletions(key, set.size);
  }

  /** Adds one uid to the expected deletions of key. */
  addExpectedDeletion(key: string, uid: string): void {
    const set = this.uids.get(key) ?? new Set<string>();
    set.add(uid);
    this.uids.set(key, set);
    this.expectations.expectDeletions(key, set.size);
  }

  /** Counts the deletion only if uid was expected and not yet observed. */
  deletionObserved(key: string, uid: string): void {
    const set = this.uids.get(key);
    if (!set?.delete(uid)) return;
    this.expectations.deletionObserved(key);
  }

  expectCreations(key: string, adds: number): void {
    this.expectations.expectCreations(key, adds);
  }

  creationObserved(key: string): void {
    this.expectations.creationObserved(key);
  }

  lowerExpectations(key: string, add: number, del: number): void {
    this.expectations.lowerExpectations(key, add, del);
  }

  raiseExpectations(key: string, add: number, del: number): void {
    this.expectations.raiseExpectations(key, add, del);
  }

  satisfiedExpectations(key: string): boolean {
    return this.expectations.satisfiedExpectations(key);
  }

  deleteExpectations(key: string): void {
    this.expectations.deleteExpectations(key);
    this.uids.delete(key);
  }
}
