/**
 * The source side of a live migration (kubevirt live-migration-source.go migrate, migrateHelper,
 * startMonitor, cancelMigration): MigrateVirtualMachine starts a peer-to-peer migration through the
 * handler's proxy sockets and returns; the migration call runs while a monitor samples the job every 400 ms
 * and applies monitor.ts's decisions (abort, post-copy, pause). The outcome goes into the migration metadata
 * (metadata.ts), which the domain report carries; each change is announced so the handler hears it at once.
 * Local disks (disks.ts) are copied with the guest through the block migration proxy socket.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import {
  abortJob,
  DOMAIN_XML,
  getDomainState,
  getDomainXml,
  getJobStats,
  migratePeerToPeer,
  startPostCopy,
  suspendDomain,
  type DomainRef,
  type LibvirtConnection,
} from '../../libvirt/index.ts';
import { quantityValue } from '../../kubevirt/index.ts';
import type { MigrationMetadataJson, PodLayout } from '../../rpc/index.ts';
import { disksToCopy } from './disks.ts';
import { migrationFlags, parallelConnections } from './flags.ts';
import { isCancellable, startMetadata, withResult, type MigrationResult } from './metadata.ts';
import { initialMonitor, monitorStep, type MonitorState } from './monitor.ts';
import type { MigrationOptions } from './options.ts';
import { destinationUris, retargetXml } from './uris.ts';

const POLL_MS = 400;
/** The migration call itself has no deadline of its own: the monitor ends it. */
const MIGRATE_CALL_MS = 7 * 24 * 3600 * 1000;

export interface SourceDeps {
  readonly conn: LibvirtConnection;
  readonly domain: () => Promise<DomainRef>;
  readonly domainName: string;
  readonly layout: PodLayout;
  /** Makes the proxy socket directory, usable by the daemons. */
  readonly prepareProxyDir: () => Promise<void>;
  /** The metadata changed: tell the handler. */
  readonly changed: () => void;
  /** The guest left for the target: this launcher has nothing more to run (KubeVirt's QEMU exits, and so does it). */
  readonly migratedAway?: () => void;
  readonly clock: Clock;
  readonly log: Logger;
}

function guestMemoryBytes(vmi: VirtualMachineInstance): number {
  const m = vmi.spec.domain.memory?.guest ?? vmi.spec.domain.resources?.requests?.['memory'];
  return m === undefined ? 0 : quantityValue(m);
}

export class MigrationSource {
  private meta: MigrationMetadataJson | undefined;
  /** The last migration's libvirt call and monitor: its job may outlive the metadata's end (an abort). */
  private running: Promise<void> | undefined;

  constructor(private readonly d: SourceDeps) {}

  get metadata(): MigrationMetadataJson | undefined {
    return this.meta;
  }

  private now(): string {
    return new Date(this.d.clock.now()).toISOString();
  }

  private setResult(r: Omit<MigrationResult, 'now'>): boolean {
    const next = withResult(this.meta, { ...r, now: this.now() });
    if (next === 'abort-in-progress') return false;
    this.meta = next;
    this.d.log.info('migration metadata updated', { ...next });
    this.d.changed();
    return true;
  }

  /** Starts the migration and returns; one already running with this uid is left alone. */
  async migrate(vmi: VirtualMachineInstance, options: MigrationOptions): Promise<void> {
    const state = vmi.status?.migrationState;
    if (state === undefined)
      throw new KvError('KV_ERR_INVALID', 'cannot migrate VMI until migrationState is ready');
    const started = startMetadata(this.meta, { uid: state.migrationUid ?? '', now: this.now() });
    if (started === 'running') return;
    // A job the monitor aborted ends in libvirt a moment after its result: the next one waits for it.
    await this.running;
    const ref = await this.d.domain();
    this.meta = started;
    this.d.changed();
    this.running = this.run(vmi, ref, options).catch((err: unknown) => {
      this.setResult({ failed: true, reason: `Live migration failed ${errorMessage(err)}` });
    });
  }

  private async run(vmi: VirtualMachineInstance, ref: DomainRef, options: MigrationOptions): Promise<void> {
    const { conn, layout } = this.d;
    const paused = (await getDomainState(conn, ref)).state === 'paused';
    const sourceXml = await getDomainXml(conn, ref, DOMAIN_XML.SECURE | DOMAIN_XML.MIGRATABLE);
    // The local disks go with the guest (NON_SHARED_INC: the top image only, over the target's own backing).
    const copied = disksToCopy(vmi, sourceXml);
    const flags = migrationFlags({ blockMigration: copied.length > 0, paused, options });
    const xml = retargetXml(sourceXml, layout.root, options.targetPodRoot);
    // Side by side (local mode) the target's QEMU listens in this Pod's proxy directory: it must be the launcher's.
    // In a Pod the source handler made that directory for its sockets, and this launcher only connects there.
    if (options.targetPodRoot !== undefined) await this.d.prepareProxyDir();
    const uris = destinationUris(layout, vmi.metadata.uid ?? '');
    const threads = parallelConnections(options);
    const params = {
      migrateUri: uris.migrateUri,
      destXml: xml,
      persistXml: xml,
      destName: this.d.domainName,
      bandwidthMiB: options.bandwidthMiB,
      ...(threads !== undefined && { parallelConnections: threads }),
      ...(copied.length > 0 && { migrateDisks: copied, disksUri: uris.disksUri }),
    };
    this.d.log.info('live migration starting', {
      dconnuri: uris.dconnuri,
      migrateUri: uris.migrateUri,
      flags,
      ...(copied.length > 0 && { copiedDisks: copied, disksUri: uris.disksUri }),
    });
    let outcome: { error?: unknown } | undefined;
    const call = migratePeerToPeer(conn, ref, {
      dconnuri: uris.dconnuri,
      params,
      flags,
      timeoutMs: MIGRATE_CALL_MS,
    })
      .then(() => (outcome = {}))
      .catch((error: unknown) => (outcome = { error }));
    await this.monitor(ref, vmi, options, () => outcome !== undefined);
    await call;
    this.finish(outcome ?? {});
  }

  private finish(outcome: { error?: unknown }): void {
    if (outcome.error === undefined) {
      this.d.log.info('live migration succeeded');
      this.setResult({ failed: false });
      this.d.migratedAway?.();
      return;
    }
    const message = errorMessage(outcome.error);
    this.d.log.warning('live migration failed', { reason: message });
    // KubeVirt counts a job its abort ended ("canceled by client") as an abort that succeeded.
    const aborted = this.meta?.AbortStatus === 'Aborting' || /cancel|abort/i.test(message);
    const r = { failed: true, reason: `Live migration failed ${message}` };
    this.setResult(aborted ? { ...r, abortStatus: 'Succeeded' } : r);
  }

  private async monitor(
    ref: DomainRef,
    vmi: VirtualMachineInstance,
    options: MigrationOptions,
    done: () => boolean,
  ): Promise<void> {
    const { clock, conn, log } = this.d;
    let state: MonitorState = initialMonitor({
      nowMs: clock.now(),
      perGiBSeconds: options.completionTimeoutPerGiBSeconds,
      memoryBytes: guestMemoryBytes(vmi),
    });
    for (;;) {
      await clock.sleep(POLL_MS);
      if (done() || this.meta?.EndTimestamp !== undefined) return;
      const stats = await getJobStats(conn, ref).catch((err: unknown) => {
        log.v(3).info('no migration job stats yet', { reason: err });
        return undefined;
      });
      if (stats?.type !== 'unbounded') continue;
      const remaining = Number(stats.params['data_remaining'] ?? 0);
      const step = monitorStep(state, { nowMs: clock.now(), remaining }, options);
      state = step.state;
      const a = step.action;
      if (a.kind === 'none') continue;
      log.info('migration monitor acts', { action: a.kind, ...(a.kind === 'abort' && { reason: a.reason }) });
      if (a.kind === 'abort') {
        // The reason first, as KubeVirt does: the migration call fails on its own as the job ends, and its error
        // (a broken stream, a cancelled job) must not stand in for why it was stopped.
        this.setResult({ failed: true, reason: a.reason, abortStatus: 'Succeeded' });
        await abortJob(conn, ref);
        return;
      }
      if (a.kind === 'post-copy') await startPostCopy(conn, ref);
      else await suspendDomain(conn, ref);
      this.setMode(state.mode);
    }
  }

  private setMode(mode: MonitorState['mode']): void {
    if (this.meta === undefined) return;
    this.meta = { ...this.meta, Mode: mode };
    this.d.changed();
  }

  /** cancelMigration: marks the abort, then aborts the running job; the outcome lands in the metadata. */
  cancel(): void {
    if (!isCancellable(this.meta))
      throw new KvError('KV_ERR_INVALID', 'failed to cancel migration - vmi is not migrating');
    if (!this.setResult({ failed: false, abortStatus: 'Aborting' })) return;
    void this.abortRunning();
  }

  private async abortRunning(): Promise<void> {
    try {
      const ref = await this.d.domain();
      const stats = await getJobStats(this.d.conn, ref);
      if (stats.type !== 'unbounded') return;
      await abortJob(this.d.conn, ref);
      this.setResult({ failed: true, reason: 'Live migration aborted ', abortStatus: 'Succeeded' });
    } catch (err) {
      this.d.log.warning('migration abort failed', { reason: err });
      this.setResult({ failed: false, abortStatus: 'Failed' });
    }
  }
}
