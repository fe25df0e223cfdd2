/**
 * The target side's end of a live migration (kubevirt live-migration-target.go TargetMigrationMonitor, and the
 * notify client's eventCallback that starts it): once a prepared target's domain resumes after an incoming
 * migration (or stops paused there, for a paused guest), the incoming job is polled until libvirt runs none,
 * then the target's migration record gets its end time. The target handler reads that end from the domain
 * report and takes the VMI over (lib/handler/migration/target.ts). KubeVirt sets the end after about 9 s of a
 * job that does not go away, so a migration is never left hanging; so does this.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { getJobStats, type DomainRef, type LibvirtConnection } from '../../libvirt/index.ts';
import type { MigrationMetadataJson } from '../../rpc/index.ts';

/** virDomainJobOperation VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN. */
const OPERATION_MIGRATION_IN = 4;
const POLL_MS = 100;
const ROUND_MS = 3000;
/** Between rounds of polling (KubeVirt's retry delays). */
const RETRY_DELAYS_MS = [1000, 2000, 3000];

export interface IncomingDeps {
  readonly conn: LibvirtConnection;
  readonly domain: () => Promise<DomainRef>;
  /** The record changed: tell the handler. */
  readonly changed: () => void;
  readonly clock: Clock;
  readonly log: Logger;
}

/** A lifecycle event that only a migration's target sees once the guest arrived. */
export const arrivedByMigration = (event: string, detail: string): boolean =>
  (event === 'resumed' && detail === 'migrated') || (event === 'suspended' && detail === 'paused');

export class IncomingMigration {
  /** The migration this launcher was prepared for (SyncMigrationTarget). */
  private expected: string | undefined;
  private meta: MigrationMetadataJson | undefined;
  private watching = false;

  constructor(private readonly d: IncomingDeps) {}

  /** SyncMigrationTarget: the guest of migration `uid` is on its way here. */
  expect(uid: string): void {
    if (this.expected === uid) return;
    this.expected = uid;
    this.meta = undefined;
  }

  get metadata(): MigrationMetadataJson | undefined {
    return this.meta;
  }

  /** A lifecycle event of the domain: the arrival of the expected guest starts the watch of its job. */
  note(event: string, detail: string): void {
    if (this.expected === undefined || this.meta !== undefined || this.watching) return;
    if (!arrivedByMigration(event, detail)) return;
    this.watching = true;
    void this.watch(this.expected).finally(() => {
      this.watching = false;
    });
  }

  private async watch(uid: string): Promise<void> {
    let done = await this.jobGoneWithin(ROUND_MS);
    for (const delay of RETRY_DELAYS_MS) {
      if (done) break;
      this.d.log.info('an incoming migration job is still active; polling again', { afterMs: delay });
      await this.d.clock.sleep(delay);
      done = await this.jobGoneWithin(ROUND_MS);
    }
    if (this.expected !== uid) return;
    this.meta = { UID: uid, EndTimestamp: new Date(this.d.clock.now()).toISOString() };
    this.d.log.info(
      done
        ? 'incoming migration completed'
        : 'incoming migration job still listed; its end is recorded anyway',
      { migration: uid },
    );
    this.d.changed();
  }

  /** Polls the domain's job until it is no incoming migration; false when the time ran out first. */
  private async jobGoneWithin(ms: number): Promise<boolean> {
    const until = this.d.clock.now() + ms;
    for (;;) {
      if (await this.noIncomingJob()) return true;
      if (this.d.clock.now() >= until) return false;
      await this.d.clock.sleep(POLL_MS);
    }
  }

  private async noIncomingJob(): Promise<boolean> {
    try {
      const job = await getJobStats(this.d.conn, await this.d.domain());
      return job.type === 'none' || job.params['operation'] !== OPERATION_MIGRATION_IN;
    } catch (err) {
      // A job libvirt cannot report on yet: look again (KubeVirt's GetJobInfo failure).
      this.d.log.v(4).info('reading the incoming job failed', { reason: err });
      return false;
    }
  }
}
