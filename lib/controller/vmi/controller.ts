/**
 * The VMI controller's reconcile (kubevirt vmi/vmi.go execute and lifecycle.go sync/updateStatus), on the VMI
 * key, from the informer caches: a VMI being deleted gets its Pods deleted; an unprocessed VMI without a Pod
 * gets its launcher Pod (newLauncherPod, guarded by expectations and a deterministic name; rendered with the
 * volume status its claims imply, so block claims become devices, and checked against the KubeVirt CR's
 * permittedHostDevices); a VMI with a Pod gets its attachment Pods for hotplugged volumes (attachment-sync.ts).
 * Then the status the Pods imply, volumeStatus included once a Pod exists and the interfaces from the Pod's
 * Multus network-status, is written as one merge patch with the resourceVersion precondition, only when it
 * changed.
 */
import { PODS } from '../../kernel/kube/resources.ts';
import { LABELS, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { KubeVirt, VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { ControllerExpectations, UIDTrackingExpectations } from '../../kernel/controller/expectations.ts';
import { controllerRefOf, newControllerRef } from '../../kernel/controller/owner.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { errorMessage, isAlreadyExists, isNotFound, KvError } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { ownerKey } from '../../kernel/controller/keys.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { ClaimLookup, PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { StaleCacheGuard } from '../../kernel/controller/stale-guard.ts';
import { parseTime } from '../../kernel/controller/time.ts';
import { isRunning, isScheduled, isScheduling, isUnprocessed } from '../../kubevirt/vmi-state.ts';
import { mergePatch } from '../../kernel/controller/merge-patch.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import { podNetworkStatuses, type PodNetworkStatus } from '../../network/multus-status.ts';
import { AttachmentPodSync } from './attachment-sync.ts';
import { podsOfVmi } from './indexers.ts';
import { clusterKubeVirt } from '../cluster-config.ts';
import { newLauncherPod, VMI_GVK, type LauncherPodConfig } from './launcher-pod.ts';
import { ensureBackendStorage } from './backend-storage/sync.ts';
import { permittedHostDevicesOf } from './permitted-host-devices.ts';
import type { VmiMetrics } from './metrics.ts';
import { memoryOverheadBytes } from './overhead.ts';
import { computeVmiStatus } from './vmi-status.ts';
import { vmiPatch } from './vmi-patch.ts';
import { computeVolumeStatus, type VolumeEvent } from './volume-status.ts';

export interface VmiControllerOptions {
  client: KubeClient;
  vmis: StoreReader<VirtualMachineInstance>;
  /** Launcher and attachment Pods, indexed by vmiIndexers. */
  pods: StoreReader<Pod>;
  vms: StoreReader<VirtualMachine>;
  /** PersistentVolumeClaims, keyed ns/name. */
  pvcs: StoreReader<PersistentVolumeClaim>;
  /** KubeVirt CRs: the cluster's permittedHostDevices. None: every device is permitted. */
  kubevirts?: StoreReader<KubeVirt>;
  clock: Clock;
  recorder: EventRecorder;
  launcher: LauncherPodConfig;
  metrics?: VmiMetrics;
}

interface SyncResult {
  pod: Pod | undefined;
  pods: Pod[];
  /** The attachment Pods of pod as the sync saw them (before its writes). */
  attachments?: Pod[];
  failure?: SyncFailure;
  /** Retry with backoff (a write failed). */
  retry?: unknown;
}

/** On the VMI's node once it has one; a migration target Pod only there. */
function mayBeCurrent(p: Pod, node: string): boolean {
  if (node !== '') return (p.spec.nodeName ?? '') === node;
  return p.metadata.labels?.[LABELS.MIGRATION_JOB_UID] === undefined;
}

/**
 * kubevirt controller.CurrentVMIPod: the newest controlled Pod, on the VMI's node once it has one. A migration
 * target Pod (label kubevirt.io/migrationJobUID) counts only on the VMI's node, where the guest has moved to:
 * never while the VMI has no node, nor while it still runs on the source.
 */
export function currentPod(vmi: VirtualMachineInstance, pods: readonly Pod[]): Pod | undefined {
  const node = vmi.status?.nodeName ?? '';
  let cur: Pod | undefined;
  for (const p of pods) {
    if (!mayBeCurrent(p, node)) continue;
    const t = parseTime(p.metadata.creationTimestamp) ?? 0;
    if (cur === undefined || (parseTime(cur.metadata.creationTimestamp) ?? 0) < t) cur = p;
  }
  return cur;
}

export class VmiController {
  readonly podExpectations: UIDTrackingExpectations;
  readonly stale: StaleCacheGuard;
  private readonly attachments: AttachmentPodSync;

  constructor(private readonly opts: VmiControllerOptions) {
    this.podExpectations = new UIDTrackingExpectations(new ControllerExpectations(opts.clock));
    this.stale = new StaleCacheGuard(opts.clock);
    this.attachments = new AttachmentPodSync({
      client: opts.client,
      pods: opts.pods,
      recorder: opts.recorder,
      expectations: this.podExpectations,
      launcher: opts.launcher,
    });
  }

  private claims(vmi: VirtualMachineInstance): ClaimLookup {
    const ns = vmi.metadata.namespace ?? '';
    return (name) => this.opts.pvcs.get(`${ns}/${name}`);
  }

  readonly reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const vmi = this.opts.vmis.get(key);
    if (vmi === undefined) {
      this.podExpectations.deleteExpectations(key);
      this.stale.forget(key);
      return undefined;
    }
    if (
      !this.podExpectations.satisfiedExpectations(key) ||
      this.stale.isStale(key, vmi.metadata.resourceVersion)
    ) {
      return undefined;
    }
    const pods = podsOfVmi(this.opts.pods, vmi);
    const sync = await this.sync(key, vmi, pods, ctx);
    await this.writeStatus(key, vmi, sync, ctx.log);
    if (sync.retry !== undefined) {
      throw new KvError(
        'KV_ERR_INTERNAL',
        `syncing VirtualMachineInstance ${key}: ${errorMessage(sync.retry)}`,
        {
          cause: sync.retry,
        },
      );
    }
    return undefined;
  };

  private async sync(
    key: string,
    vmi: VirtualMachineInstance,
    pods: Pod[],
    ctx: ReconcileContext,
  ): Promise<SyncResult> {
    const pod = currentPod(vmi, pods);
    if (vmi.metadata.deletionTimestamp !== undefined) return this.deletePods(key, vmi, pods);
    if (pod !== undefined || !isUnprocessed(vmi)) {
      const attachments = this.attachments.attachmentPods(pod);
      const res = await this.attachments.sync({ key, vmi, pod, pods, claim: this.claims(vmi) }, ctx);
      return { pod, pods, attachments, ...res };
    }
    return this.createPod(key, vmi, pods, ctx);
  }

  private async deletePods(key: string, vmi: VirtualMachineInstance, pods: Pod[]): Promise<SyncResult> {
    const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
    const result: SyncResult = { pod: currentPod(vmi, pods), pods };
    if (live.length === 0) return result;
    this.podExpectations.expectDeletions(
      key,
      live.map((p) => p.metadata.uid ?? ''),
    );
    for (const p of live) {
      try {
        await this.opts.client.delete(PODS, p.metadata.name ?? '', { namespace: p.metadata.namespace ?? '' });
      } catch (err) {
        this.podExpectations.deletionObserved(key, p.metadata.uid ?? '');
        if (isNotFound(err)) continue;
        this.opts.recorder.event(vmi, 'Warning', 'FailedDelete', `Error deleting pod: ${errorMessage(err)}`);
        result.failure = { reason: 'FailedDelete', message: `failed to delete pod: ${errorMessage(err)}` };
        result.retry = err;
        continue;
      }
      this.opts.recorder.event(
        vmi,
        'Normal',
        'SuccessfulDelete',
        `Deleted virtual machine pod ${p.metadata.name ?? ''}`,
      );
    }
    return result;
  }

  private async createPod(
    key: string,
    vmi: VirtualMachineInstance,
    pods: Pod[],
    ctx: ReconcileContext,
  ): Promise<SyncResult> {
    let manifest: Pod;
    const kubevirt = clusterKubeVirt(this.opts.kubevirts?.list() ?? []);
    const storage = await this.backendStorage(vmi, kubevirt, ctx);
    if (!storage.ready) return { pod: undefined, pods, ...storage.failure };
    try {
      const owned = structuredClone(vmi);
      this.setVolumeStatus(owned, undefined, []);
      const permittedHostDevices = permittedHostDevicesOf(kubevirt);
      manifest = newLauncherPod(owned, { ...this.opts.launcher, permittedHostDevices }, storage.claim);
    } catch (err) {
      // Retried with backoff, as KubeVirt's sync error: the cause may be the cluster's settings.
      const message = `failed to render launch manifest: ${errorMessage(err)}`;
      return { pod: undefined, pods, failure: { reason: 'FailedCreate', message }, retry: err };
    }
    this.podExpectations.expectCreations(key, 1);
    try {
      const created = await this.opts.client.create(PODS, manifest, {
        namespace: manifest.metadata.namespace ?? '',
      });
      ctx.log.info('created launcher pod', { pod: created.metadata.name });
      this.opts.recorder.event(
        vmi,
        'Normal',
        'SuccessfulCreate',
        `Created virtual machine pod ${created.metadata.name ?? ''}`,
      );
      this.opts.metrics?.launcherOverhead(memoryOverheadBytes(vmi, this.opts.launcher.overhead));
      return { pod: created, pods: [...pods, created] };
    } catch (err) {
      this.podExpectations.creationObserved(key);
      if (isAlreadyExists(err)) return { pod: undefined, pods };
      this.opts.recorder.event(vmi, 'Warning', 'FailedCreate', `Error creating pod: ${errorMessage(err)}`);
      const message = `failed to create virtual machine pod: ${errorMessage(err)}`;
      return { pod: undefined, pods, failure: { reason: 'FailedCreate', message }, retry: err };
    }
  }

  /**
   * The VM's backend-storage claim, made when missing; not ready is a failure retried with backoff, as
   * KubeVirt's BackendStorageNotReady (the claim is not watched for the VMI).
   */
  private async backendStorage(
    vmi: VirtualMachineInstance,
    kubevirt: KubeVirt | undefined,
    ctx: ReconcileContext,
  ): Promise<
    { ready: true; claim?: string } | { ready: false; failure: Pick<SyncResult, 'failure' | 'retry'> }
  > {
    try {
      const vmiRef = newControllerRef(vmi, VMI_GVK);
      const s = await ensureBackendStorage({
        client: this.opts.client,
        pvcs: this.opts.pvcs,
        kubevirt,
        vmi,
        vmiRef,
      });
      if (s.ready) return s;
      ctx.log.v(2).info('delaying pod creation while backend storage populates', { why: s.waiting });
      const retry = new KvError('KV_ERR_CONFIG', s.waiting);
      return {
        ready: false,
        failure: { failure: { reason: 'BackendStorageNotReady', message: s.waiting }, retry },
      };
    } catch (err) {
      const message = `failed to create backend storage: ${errorMessage(err)}`;
      return {
        ready: false,
        failure: { failure: { reason: 'FailedBackendStorageCreate', message }, retry: err },
      };
    }
  }

  private ownerVmExists(vmi: VirtualMachineInstance): boolean {
    const ref = controllerRefOf(vmi);
    const key = ownerKey(vmi, ref, 'VirtualMachine');
    return key !== undefined && this.opts.vms.get(key)?.metadata.uid === ref?.uid;
  }

  /**
   * Sets on `owned` (a copy this sync may change) the volume status its claims and Pods imply, and returns the
   * transitions to announce. Kept once a launcher Pod exists and until the VMI is final (KubeVirt starts at the
   * hand-over; we start with the Pod, so the status says how its claims were rendered).
   */
  private setVolumeStatus(
    owned: VirtualMachineInstance,
    pod: Pod | undefined,
    attachmentPods: readonly Pod[],
  ): VolumeEvent[] {
    const res = computeVolumeStatus({ vmi: owned, launcher: pod, attachmentPods, claim: this.claims(owned) });
    const status = (owned.status ??= {});
    if (res.statuses.length > 0) status.volumeStatus = res.statuses;
    else delete status.volumeStatus;
    return res.events;
  }

  /** Volume status on the desired VMI (computeVmiStatus's own copy) while it has a Pod and is not final. */
  private withVolumes(desired: VirtualMachineInstance, sync: SyncResult): VolumeEvent[] {
    const { pod } = sync;
    if (pod === undefined || !(isScheduling(desired) || isScheduled(desired) || isRunning(desired)))
      return [];
    return this.setVolumeStatus(desired, pod, sync.attachments ?? this.attachments.attachmentPods(pod));
  }

  /** The Multus network-status of the launcher Pod; what cannot be read of it counts as absent. */
  private podNetworks(pod: Pod | undefined, log: Logger): readonly PodNetworkStatus[] {
    if (pod === undefined) return [];
    const { statuses, problem } = podNetworkStatuses(pod.metadata.annotations);
    if (problem !== undefined) {
      log.warning('ignoring what cannot be read of the Pod network-status annotation', {
        pod: pod.metadata.name,
        reason: problem,
      });
    }
    return statuses;
  }

  private async writeStatus(
    key: string,
    vmi: VirtualMachineInstance,
    sync: SyncResult,
    log: Logger,
  ): Promise<void> {
    const now = this.opts.clock.now();
    const res = computeVmiStatus({
      vmi,
      pod: sync.pod,
      pods: sync.pods,
      ownerVmExists: this.ownerVmExists(vmi),
      nowMs: now,
      podNetworks: this.podNetworks(sync.pod, log),
      ...(sync.failure !== undefined && { failure: sync.failure }),
    });
    const desired = res.vmi;
    const events = this.withVolumes(desired, sync);
    const patch = vmiPatch(vmi, desired, res.nodeOwned);
    if (patch === undefined) return;
    await mergePatch(this.opts.client, VIRTUAL_MACHINE_INSTANCES, { obj: vmi, patch });
    this.stale.wrote(key, vmi.metadata.resourceVersion);
    for (const e of events) this.opts.recorder.event(vmi, e.type, e.reason, e.message);
    const phase = res.vmi.status?.phase;
    if (phase !== undefined && phase !== vmi.status?.phase) this.phaseChanged(vmi, phase, now);
  }

  private phaseChanged(vmi: VirtualMachineInstance, phase: string, now: number): void {
    this.opts.metrics?.phaseReached(phase, vmi.metadata.creationTimestamp, now);
    if (phase === 'Failed') {
      this.opts.recorder.event(
        vmi,
        'Warning',
        'Failed',
        `The virtual machine instance failed in phase ${vmi.status?.phase ?? 'Pending'}`,
      );
    }
  }
}
