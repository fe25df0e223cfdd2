/**
 * One candidate's view of the Lease and the single attempt to acquire or renew it, with client-go's
 * semantics: a holder's lease expires when the record has stayed unchanged, by the local clock, for its
 * leaseDurationSeconds (observedTime; remote timestamps are never compared with the local clock). Every
 * write is a PUT carrying the resourceVersion last read, so of two racing candidates one gets 409.
 */
import type { Clock } from '../clock.ts';
import { isConflict, isNotFound } from '../errors/errors.ts';
import type { KubeClient } from '../kube/types.ts';
import type { Logger } from '../log/log.ts';
import { LEASES } from '../kube/resources.ts';
import { microTime, newLease, recordOf, sameRecord, withRecord } from './lease.ts';
import type { Lease, LeaderRecord } from './lease.ts';

/** ok: we hold the lease now; held: another holder's lease is still valid; failed: API error, try again. */
export type AttemptResult = 'ok' | 'held' | 'failed';

export interface LeaseLockOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds: number;
  clock: Clock;
  log: Logger;
}

const RELEASE_TRIES = 3;

export class LeaseLock {
  private observed: LeaderRecord | undefined;
  private observedAt = 0;
  private lease: Lease | undefined;

  constructor(private readonly o: LeaseLockOptions) {}

  /** The holder in the last record seen ('' when free or never read). */
  get holder(): string {
    return this.observed?.holderIdentity ?? '';
  }

  private holdsIt(): boolean {
    return this.holder === this.o.identity;
  }

  private valid(now: number): boolean {
    return this.observedAt + (this.observed?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private wrote(lease: Lease): void {
    this.lease = lease;
    this.observed = recordOf(lease);
    this.observedAt = this.o.clock.now();
  }

  private read(lease: Lease): void {
    this.lease = lease;
    const r = recordOf(lease);
    if (sameRecord(this.observed, r)) return;
    this.observed = r;
    this.observedAt = this.o.clock.now();
  }

  private mine(now: number, prev: LeaderRecord | undefined): LeaderRecord {
    const stamp = microTime(now);
    const renewing = prev !== undefined && prev.holderIdentity === this.o.identity;
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: this.o.leaseDurationSeconds,
      acquireTime: renewing && prev.acquireTime !== '' ? prev.acquireTime : stamp,
      renewTime: stamp,
      leaseTransitions: prev === undefined ? 0 : prev.leaseTransitions + (renewing ? 0 : 1),
    };
  }

  /** One acquire-or-renew attempt; never throws. */
  async tryAcquireOrRenew(): Promise<AttemptResult> {
    const now = this.o.clock.now();
    if (this.holdsIt() && this.valid(now) && this.lease && (await this.fastRenew(this.lease, now)))
      return 'ok';
    let current: Lease;
    try {
      current = await this.o.client.get<Lease>(LEASES, this.o.name, { namespace: this.o.namespace });
    } catch (err) {
      if (isNotFound(err)) return this.create(now);
      this.o.log.warning('cannot read leader lease', { reason: err });
      return 'failed';
    }
    this.read(current);
    if (this.holder !== '' && this.valid(now) && !this.holdsIt()) return 'held';
    return this.write(withRecord(current, this.mine(now, this.observed)));
  }

  /** The leader's optimistic renew from the lease it wrote last; false sends it down the slow path. */
  private async fastRenew(lease: Lease, now: number): Promise<boolean> {
    try {
      this.wrote(await this.o.client.update(LEASES, withRecord(lease, this.mine(now, this.observed))));
      return true;
    } catch (err) {
      this.o.log.v(2).info('optimistic lease renew failed, reading it again', { reason: err });
      return false;
    }
  }

  private async create(now: number): Promise<AttemptResult> {
    try {
      this.wrote(
        await this.o.client.create(
          LEASES,
          newLease(this.o.namespace, this.o.name, this.mine(now, undefined)),
        ),
      );
      return 'ok';
    } catch (err) {
      this.o.log.warning('cannot create leader lease', { reason: err });
      return 'failed';
    }
  }

  private async write(lease: Lease): Promise<AttemptResult> {
    try {
      this.wrote(await this.o.client.update(LEASES, lease));
      return 'ok';
    } catch (err) {
      // A conflict is the normal outcome of losing a race to another candidate.
      if (isConflict(err)) this.o.log.v(2).info('leader lease changed while writing it', { reason: err });
      else this.o.log.warning('cannot update leader lease', { reason: err });
      return 'failed';
    }
  }

  /**
   * Gives the lease up when we still hold it: holder cleared, leaseDurationSeconds 1, so the next candidate
   * takes it on its next attempt. Retries on conflict (a renew may have landed meanwhile). Never throws.
   */
  async release(): Promise<boolean> {
    for (let i = 0; i < RELEASE_TRIES; i++) {
      const outcome = await this.releaseOnce();
      if (outcome !== 'conflict') return outcome === 'released';
    }
    return false;
  }

  private async releaseOnce(): Promise<'released' | 'conflict' | 'failed'> {
    try {
      const current = await this.o.client.get<Lease>(LEASES, this.o.name, { namespace: this.o.namespace });
      const r = recordOf(current);
      if (r.holderIdentity !== this.o.identity) return 'released';
      const stamp = microTime(this.o.clock.now());
      const free = {
        ...r,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: stamp,
        renewTime: stamp,
      };
      this.wrote(await this.o.client.update(LEASES, withRecord(current, free)));
      return 'released';
    } catch (err) {
      if (isConflict(err)) return 'conflict';
      if (isNotFound(err)) return 'released';
      this.o.log.warning('cannot release leader lease', { reason: err });
      return 'failed';
    }
  }
}
