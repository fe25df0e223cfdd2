/**
 * The migration controller's reconcile (kubevirt migration.go execute, sync and updateStatus, tag v1.6.2), on
 * the migration key, from the informer caches: first the migration's selector label and finalizer where the
 * api's mutating webhook has not set them; then decideMigration (phase.ts) on the migration, its VMI, its
 * target Pod (and its attachment Pod), the VMI's launcher Pod and the cluster's counts, gated by the Pod
 * expectations and KubeVirt's "creations pending" and "VMI has two active Pods" checks; its actions are applied
 * (target Pod, the attachment Pod of a VMI's hotplugged volumes on the target node, VMI hand-off, abort,
 * failure), then the status is written through /status when it changed, a final migration loses its finalizer
 * and a Failed one its target Pod.
 */
import { PODS } from '../../kernel/kube/resources.ts';
import {
  ANNOTATIONS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../kubevirt/index.ts';
import type {
  KubeVirt,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { ControllerExpectations, UIDTrackingExpectations } from '../../kernel/controller/expectations.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { mergeDiff, mergePatch, scopedMergePatch } from '../../kernel/controller/merge-patch.ts';
import { objectKey } from '../../kernel/controller/keys.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { StaleCacheGuard } from '../../kernel/controller/stale-guard.ts';
import { errorMessage, isNotFound, KvError } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { clusterKubeVirt } from '../cluster-config.ts';
import { HOTPLUG_DISK, newAttachmentPod } from '../vmi/attachment-pod.ts';
import { currentPod } from '../vmi/controller.ts';
import { hasHotplugVolumes, hotplugVolumes } from '../vmi/hotplug-volumes.ts';
import { attachmentPodsOfLauncher, podsOfVmi } from '../vmi/indexers.ts';
import type { LauncherPodConfig } from '../vmi/launcher-pod.ts';
import { migrationBackoffMs } from './backoff.ts';
import { activePodCount, otherMigrationActive, outboundFromNode, runningMigrations } from './cluster-view.ts';
import { migrationConfigurationOf, type MigrationConfiguration } from './config.ts';
import type { MigrationAction, MigrationDecision, MigrationInput } from './decision.ts';
import { migrationsOfVmi, targetPodsOf } from './handlers.ts';
import { migrationMetadata, migrationStatus, releasedFinalizers } from './migration-writes.ts';
import { decideMigration } from './phase.ts';
import { newTargetPod } from './target-pod.ts';
import { failedTargetToDelete } from './target-cleanup.ts';
import { abortedVmi, failedOnVmi, handedOffVmi } from './vmi-writes.ts';

type Migration = VirtualMachineInstanceMigration;

export interface MigrationControllerOptions {
  client: KubeClient;
  migrations: StoreReader<Migration>;
  vmis: StoreReader<VirtualMachineInstance>;
  /** Launcher and target Pods, indexed by vmiIndexers and the migration uid (handlers.ts). */
  pods: StoreReader<Pod>;
  kubevirts: StoreReader<KubeVirt>;
  pvcs: StoreReader<PersistentVolumeClaim>;
  clock: Clock;
  recorder: EventRecorder;
  launcher: LauncherPodConfig;
}

const HAND_OFF_MESSAGE = 'Migration target pod is ready for preparation by virt-handler.';
const ABORT_MESSAGE = 'Migration is ready to be canceled by virt-handler.';
const TARGET_READY_ANNOTATION = 'kubevirt.io/migration-target-ready-timestamp';

/** How long a migration held back by a pending creation or a second active Pod waits (KubeVirt: 1 s). */
const GATE_RETRY_MS = 1000;

interface Pass {
  key: string;
  m: Migration;
  vmi: VirtualMachineInstance;
  target: Pod | undefined;
  /** The target Pod's volume attachment Pod. */
  attachment: Pod | undefined;
  source: Pod | undefined;
  config: MigrationConfiguration;
  ctx: ReconcileContext;
}

export class MigrationController {
  readonly podExpectations: UIDTrackingExpectations;
  private readonly expectations: ControllerExpectations;
  /** The VMI cache lags behind a VMI write of this controller (KubeVirt's hand-off map). */
  private readonly staleVmi: StaleCacheGuard;
  /** The migration cache lags behind a write of this controller. */
  private readonly staleMigration: StaleCacheGuard;
  /** The last target Pod create error per migration, for the ResourceQuota condition. */
  private readonly createErrors = new Map<string, string>();

  constructor(private readonly opts: MigrationControllerOptions) {
    this.expectations = new ControllerExpectations(opts.clock);
    this.podExpectations = new UIDTrackingExpectations(this.expectations);
    this.staleVmi = new StaleCacheGuard(opts.clock);
    this.staleMigration = new StaleCacheGuard(opts.clock);
  }

  readonly reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const m = this.opts.migrations.get(key);
    if (m === undefined) {
      this.podExpectations.deleteExpectations(key);
      this.createErrors.delete(key);
      this.staleMigration.forget(key);
      return undefined;
    }
    if (this.staleMigration.isStale(key, m.metadata.resourceVersion)) return undefined;
    if (await this.ensureMetadata(key, m)) return undefined;
    const ns = m.metadata.namespace ?? '';
    const vmiKey = `${ns}/${m.spec.vmiName ?? ''}`;
    const vmi = this.opts.vmis.get(vmiKey);
    if (vmi === undefined) return this.withoutVmi(m);
    if (this.staleVmi.isStale(vmiKey, vmi.metadata.resourceVersion)) return undefined;
    const config = migrationConfigurationOf(clusterKubeVirt(this.opts.kubevirts.list()));
    const source = currentPod(vmi, podsOfVmi(this.opts.pods, vmi));
    const target = targetPodsOf(this.opts.pods, m).find((p) => isControlledBy(p, vmi));
    const attachment = attachmentPodsOfLauncher(this.opts.pods, target, HOTPLUG_DISK)[0];
    return this.run({ key, m, vmi, target, attachment, source, config, ctx });
  };

  /** One pass: decide, act, write the status, clean up, announce; a failed action is retried with backoff. */
  private async run(pass: Pass): Promise<ReconcileResult> {
    const d = decideMigration(this.input(pass));
    const gated = this.gate(pass, d);
    const syncErr = await this.apply(pass, d);
    const written = await this.writeStatus(pass, d);
    await this.cleanUp(pass, written);
    this.announce(pass.m, pass.vmi, d);
    if (syncErr !== undefined) {
      throw new KvError('KV_ERR_INTERNAL', `syncing migration ${pass.key}: ${errorMessage(syncErr)}`, {
        cause: syncErr,
      });
    }
    if (d.syncError !== undefined) throw new KvError('KV_ERR_INTERNAL', d.syncError);
    const after = Math.min(d.requeueAfterMs ?? Infinity, gated ? GATE_RETRY_MS : Infinity);
    return Number.isFinite(after) ? { requeueAfterMs: after } : undefined;
  }

  private input(p: Pass): MigrationInput {
    const { m, vmi, config } = p;
    const all = this.opts.migrations.list();
    const running = runningMigrations(all, (o) => targetPodsOf(this.opts.pods, o).length > 0);
    const vmiOf = (o: Migration): VirtualMachineInstance | undefined =>
      this.opts.vmis.get(`${o.metadata.namespace ?? ''}/${o.spec.vmiName ?? ''}`);
    const createError = this.createErrors.get(p.key);
    const ofVmi = migrationsOfVmi(this.opts.migrations, m.metadata.namespace ?? '', vmi.metadata.name ?? '');
    return {
      migration: m,
      vmi,
      targetPod: p.target,
      sourcePod: p.source,
      hotplug: hasHotplugVolumes(vmi),
      attachmentPod: p.attachment,
      limits: {
        parallelMigrationsPerCluster: config.parallelMigrationsPerCluster,
        parallelOutboundMigrationsPerNode: config.parallelOutboundMigrationsPerNode,
        running: running.length,
        outboundFromNode: outboundFromNode(vmi.status?.nodeName ?? '', running, vmiOf),
      },
      otherMigrationActive: otherMigrationActive(vmi, m, ofVmi),
      nowMs: this.opts.clock.now(),
      ...(createError !== undefined && { createError }),
      backoffMs: migrationBackoffMs(m, ofVmi, this.opts.clock.now()),
    };
  }

  /**
   * Drops the sync actions while Pod expectations are pending, and a target Pod creation while any creation is
   * unobserved or the VMI already has two active Pods; returns whether a creation was held back.
   */
  private gate(p: Pass, d: MigrationDecision): boolean {
    if (!this.podExpectations.satisfiedExpectations(p.key)) {
      d.actions = d.actions.filter((a) => a.kind === 'finalize' || a.kind === 'markTargetReady');
      return false;
    }
    if (!d.actions.some((a) => a.kind === 'createTargetPod')) return false;
    const busy =
      this.expectations.allPendingCreations() > 0 || activePodCount(podsOfVmi(this.opts.pods, p.vmi)) > 1;
    if (busy) d.actions = d.actions.filter((a) => a.kind !== 'createTargetPod');
    return busy;
  }

  /** Applies the actions in order; returns the first failure (retried with backoff). */
  private async apply(p: Pass, d: MigrationDecision): Promise<unknown> {
    for (const a of d.actions) {
      try {
        await this.act(p, a);
      } catch (err) {
        return err;
      }
    }
    return undefined;
  }

  private async act(p: Pass, a: MigrationAction): Promise<void> {
    switch (a.kind) {
      case 'deleteMigration':
      case 'finalize':
        return;
      case 'createTargetPod':
        return this.createTarget(p);
      case 'createAttachmentPod':
        return this.createAttachment(p);
      case 'deleteTargetPod':
        if (p.target !== undefined) await this.deleteTarget(p.key, p.m, p.target, a.message);
        return;
      case 'handOff':
        return this.handOff(p);
      case 'abortOnVmi':
        await this.writeVmi(p.vmi, abortedVmi(p.vmi));
        this.opts.recorder.event(p.m, 'Normal', 'SuccessfulAbortMigration', ABORT_MESSAGE);
        return;
      case 'failOnVmi':
        return this.failOnVmi(p);
      case 'markTargetReady':
        return this.markTargetReady(p, a.timestamp);
    }
  }

  private async handOff(p: Pass): Promise<void> {
    const { m, vmi, target } = p;
    if (target === undefined) return;
    const sourcePod = m.status?.migrationState?.sourcePod ?? p.source?.metadata.name ?? '';
    const attachmentPodUid = p.attachment?.metadata.uid;
    if (hasHotplugVolumes(vmi) && attachmentPodUid === undefined)
      throw new KvError('KV_ERR_INTERNAL', 'target attachment pod not found');
    await this.writeVmi(
      vmi,
      handedOffVmi({
        vmi,
        migration: m,
        targetPod: target,
        sourcePod,
        config: p.config,
        ...(attachmentPodUid !== undefined && { attachmentPodUid }),
      }),
    );
    this.opts.recorder.event(m, 'Normal', 'SuccessfulHandOver', HAND_OFF_MESSAGE);
  }

  private async failOnVmi(p: Pass): Promise<void> {
    await this.writeVmi(p.vmi, failedOnVmi(p.vmi, this.opts.clock.now()));
    const uid = p.m.metadata.uid ?? '';
    const message = `VirtualMachineInstance migration uid ${uid} failed. reason: Target pod is down`;
    this.opts.recorder.event(p.vmi, 'Warning', 'FailedMigration', message);
  }

  /** Annotates the target Pod with the time its domain was ready (KubeVirt's Running phase does the same). */
  private async markTargetReady(p: Pass, timestamp: string): Promise<void> {
    const pod = p.target;
    if (pod === undefined) return;
    await this.opts.client.patch(
      PODS,
      pod.metadata.name ?? '',
      { metadata: { annotations: { [TARGET_READY_ANNOTATION]: timestamp } } },
      { namespace: pod.metadata.namespace ?? '', type: 'merge' },
    );
  }

  private async createTarget(p: Pass): Promise<void> {
    const { key, m, vmi } = p;
    const manifest = newTargetPod(vmi, m, this.opts.launcher);
    this.podExpectations.expectCreations(key, 1);
    try {
      const created = await this.opts.client.create(PODS, manifest, {
        namespace: manifest.metadata.namespace ?? '',
      });
      this.createErrors.delete(key);
      p.ctx.log.info('created migration target pod', { pod: created.metadata.name });
      this.opts.recorder.event(
        m,
        'Normal',
        'SuccessfulCreate',
        `Created migration target pod ${created.metadata.name ?? ''}`,
      );
    } catch (err) {
      this.podExpectations.creationObserved(key);
      this.createErrors.set(key, errorMessage(err));
      this.opts.recorder.event(vmi, 'Warning', 'FailedCreate', `Error creating pod: ${errorMessage(err)}`);
      throw err;
    }
  }

  /**
   * The attachment Pod of the target Pod (kubevirt migration.go createAttachmentPod): the VMI's hotplugged volumes
   * as the source Pod has them, every one mounted again (the volume statuses say what the source node mounted),
   * labelled with the migration like the target Pod.
   */
  private async createAttachment(p: Pass): Promise<void> {
    const { key, m, vmi, target } = p;
    if (target === undefined) return;
    const ns = vmi.metadata.namespace ?? '';
    const manifest = newAttachmentPod({
      vmi: { ...vmi, status: { ...vmi.status, volumeStatus: [] } },
      launcher: target,
      volumes: hotplugVolumes(vmi, p.source),
      claim: (name) => this.opts.pvcs.get(`${ns}/${name}`),
      cfg: this.opts.launcher,
    });
    manifest.metadata.labels = {
      ...manifest.metadata.labels,
      [LABELS.MIGRATION_JOB_UID]: m.metadata.uid ?? '',
    };
    manifest.metadata.annotations = { [ANNOTATIONS.MIGRATION_JOB_NAME]: m.metadata.name ?? '' };
    this.podExpectations.expectCreations(key, 1);
    try {
      const created = await this.opts.client.create(PODS, manifest, { namespace: ns });
      p.ctx.log.info('created migration attachment pod', { pod: created.metadata.name });
      this.opts.recorder.event(
        m,
        'Normal',
        'SuccessfulCreate',
        `Created attachment pod ${created.metadata.name ?? ''}`,
      );
    } catch (err) {
      this.podExpectations.creationObserved(key);
      this.opts.recorder.event(
        vmi,
        'Warning',
        'FailedCreate',
        `Error creating attachment pod: ${errorMessage(err)}`,
      );
      throw err;
    }
  }

  private async deleteTarget(key: string, m: Migration, pod: Pod, message: string): Promise<void> {
    this.podExpectations.expectDeletions(key, [pod.metadata.uid ?? '']);
    try {
      await this.opts.client.delete(PODS, pod.metadata.name ?? '', {
        namespace: pod.metadata.namespace ?? '',
      });
    } catch (err) {
      this.podExpectations.deletionObserved(key, pod.metadata.uid ?? '');
      if (isNotFound(err)) return;
      this.opts.recorder.event(
        m,
        'Warning',
        'FailedDelete',
        `Error deleting migration target pod: ${errorMessage(err)}`,
      );
      throw err;
    }
    this.opts.recorder.event(m, 'Normal', 'SuccessfulDelete', message);
  }

  /** Writes the VMI's labels and migrationState as desired, with the resourceVersion precondition. */
  private async writeVmi(vmi: VirtualMachineInstance, desired: VirtualMachineInstance): Promise<void> {
    const patch = scopedMergePatch(vmi, desired, {
      metadata: ['labels'],
      top: { status: ['migrationState'] },
    });
    if (patch === undefined) return;
    await mergePatch(this.opts.client, VIRTUAL_MACHINE_INSTANCES, { obj: vmi, patch });
    const key = `${vmi.metadata.namespace ?? ''}/${vmi.metadata.name ?? ''}`;
    this.staleVmi.wrote(key, vmi.metadata.resourceVersion);
  }

  /**
   * The selector label and finalizer; true when it wrote (the update wakes the key again). The api's
   * /migration-mutate-create webhook sets both first, on create; this covers a migration created while no
   * configuration names that webhook (an install or upgrade under way, a cluster registering only some).
   */
  private async ensureMetadata(key: string, m: Migration): Promise<boolean> {
    const desired = { ...m, metadata: { ...m.metadata, ...migrationMetadata(m) } };
    const patch = scopedMergePatch(m, desired, { metadata: ['labels', 'finalizers'] });
    if (patch === undefined) return false;
    await mergePatch(this.opts.client, VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, { obj: m, patch });
    this.staleMigration.wrote(key, m.metadata.resourceVersion);
    return true;
  }

  /** The VMI is gone: delete the migration, or let a deleted one go (KubeVirt leaves it to its finalizer). */
  private async withoutVmi(m: Migration): Promise<ReconcileResult> {
    const ns = m.metadata.namespace ?? '';
    if (m.metadata.deletionTimestamp === undefined) {
      await this.opts.client
        .delete(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, m.metadata.name ?? '', { namespace: ns })
        .catch(ignoreNotFound);
    } else await this.release(objectKey(m), m);
    return undefined;
  }

  private async release(key: string, m: Migration): Promise<void> {
    const finalizers = releasedFinalizers(m);
    if (finalizers.length === (m.metadata.finalizers ?? []).length) return;
    await mergePatch(this.opts.client, VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
      obj: m,
      patch: { metadata: { finalizers } },
    });
    this.staleMigration.wrote(key, m.metadata.resourceVersion);
  }

  /** Writes the status when it changed; returns the migration as it now is. */
  private async writeStatus(p: Pass, d: MigrationDecision): Promise<Migration> {
    const { m } = p;
    const status = migrationStatus({
      migration: m,
      decision: d,
      vmi: p.vmi,
      sourcePod: p.source?.metadata.name,
      nowMs: this.opts.clock.now(),
    });
    const diff = mergeDiff(m.status ?? {}, status);
    if (diff === undefined) return m;
    const next = await mergePatch(this.opts.client, VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
      obj: m,
      patch: { status: diff },
      subresource: 'status',
    });
    this.staleMigration.wrote(p.key, m.metadata.resourceVersion);
    return next;
  }

  /**
   * A migration final in the cache drops its finalizer, and a Failed one its target Pod (target-cleanup.ts);
   * m is the migration as the status write left it.
   */
  private async cleanUp(p: Pass, m: Migration): Promise<void> {
    if (p.m.status?.phase !== 'Succeeded' && p.m.status?.phase !== 'Failed') return;
    const target = failedTargetToDelete(p.m, p.vmi, p.target);
    if (target !== undefined && this.podExpectations.satisfiedExpectations(p.key)) {
      const ref = `${target.metadata.namespace ?? ''}/${target.metadata.name ?? ''}`;
      await this.deleteTarget(p.key, m, target, `migration failed and target pod ${ref} is deleted`);
    }
    await this.release(p.key, m);
  }

  private announce(m: Migration, vmi: VirtualMachineInstance, d: MigrationDecision): void {
    if (d.backoff !== undefined) this.opts.recorder.event(vmi, 'Warning', 'MigrationBackoff', d.backoff);
    if (d.failure !== undefined) this.opts.recorder.event(m, 'Warning', 'FailedMigration', d.failure);
    if (d.event !== undefined) this.opts.recorder.event(m, 'Normal', 'SuccessfulMigration', d.event);
    if (d.warning !== undefined)
      this.opts.recorder.event(m, 'Warning', 'MigrationTargetPodUnschedulable', d.warning);
  }
}

function isControlledBy(pod: Pod, vmi: VirtualMachineInstance): boolean {
  return (pod.metadata.ownerReferences ?? []).some(
    (r) => r.controller === true && r.uid === vmi.metadata.uid,
  );
}

function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
