/**
 * The attachment Pod writes of a VMI sync (kubevirt vmi/lifecycle.go sync and volume-hotplug.go, tag v1.6.2):
 * a final VMI loses every attachment Pod; otherwise the attachment Pods of launcher Pods that are down go
 * (orphans), and once the current launcher Pod is ready (and not being deleted) planAttachment decides which
 * volume attachment Pod to create and which to delete, planDeviceAttachment the same for hotplugged DRA claims
 * (device-attachment.ts). Expectations are raised before the writes and lowered when
 * the API refuses one, so a slow cache never leads to a second Pod. Deletes use a grace period of 0.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { UIDTrackingExpectations } from '../../kernel/controller/expectations.ts';
import type { ReconcileContext } from '../../kernel/controller/runner.ts';
import { errorMessage, isNotFound } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { PODS } from '../../kernel/kube/resources.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { isPodDown, isPodReady, type Pod } from '../../kubevirt/core/pod.ts';
import type { ClaimLookup } from '../../kubevirt/core/pvc.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import { HOTPLUG_DISK, newAttachmentPod } from './attachment-pod.ts';
import { HOTPLUG_DEVICE, planDeviceAttachment } from './device-attachment.ts';
import { hotplugVolumes, planAttachment, volumeReadyToAttach } from './hotplug-volumes.ts';
import { attachmentPodsOfLauncher } from './indexers.ts';
import type { LauncherPodConfig } from './launcher-pod.ts';

export interface AttachmentSyncOptions {
  client: KubeClient;
  /** Launcher and attachment Pods, indexed by vmiIndexers. */
  pods: StoreReader<Pod>;
  recorder: EventRecorder;
  expectations: UIDTrackingExpectations;
  launcher: LauncherPodConfig;
}

export interface AttachmentSyncInput {
  key: string;
  vmi: VirtualMachineInstance;
  /** The current launcher Pod. */
  pod: Pod | undefined;
  /** Every launcher Pod of the VMI. */
  pods: readonly Pod[];
  claim: ClaimLookup;
}

export interface AttachmentSyncResult {
  failure?: SyncFailure;
  retry?: unknown;
}

export class AttachmentPodSync {
  constructor(private readonly o: AttachmentSyncOptions) {}

  /** The volume attachment Pods of a launcher Pod, from the cache. */
  attachmentPods(launcher: Pod | undefined): Pod[] {
    return this.ownedPods(launcher, HOTPLUG_DISK);
  }

  /** The DRA device attachment Pods of a launcher Pod, from the cache. */
  devicePods(launcher: Pod | undefined): Pod[] {
    return this.ownedPods(launcher, HOTPLUG_DEVICE);
  }

  private ownedPods(launcher: Pod | undefined, label?: string): Pod[] {
    return attachmentPodsOfLauncher(this.o.pods, launcher, label);
  }

  private plan(input: AttachmentSyncInput): { create: Pod[]; remove: Pod[] } {
    const { vmi, pod } = input;
    const live = (ps: Pod[]): Pod[] => ps.filter((p) => p.metadata.deletionTimestamp === undefined);
    const all = (ps: readonly Pod[]): Pod[] => live(ps.flatMap((p) => this.ownedPods(p)));
    if (isFinal(vmi)) return { create: [], remove: all(input.pods) };
    const orphans = all(input.pods.filter(isPodDown));
    if (pod === undefined || !isPodReady(pod) || pod.metadata.deletionTimestamp !== undefined) {
      return { create: [], remove: orphans };
    }
    const hotplug = hotplugVolumes(vmi, pod);
    const ready = hotplug.filter((v) => volumeReadyToAttach(v, input.claim));
    const volumes = planAttachment({ vmi, hotplug, ready, pods: this.attachmentPods(pod) });
    const devices = planDeviceAttachment(vmi, pod, this.devicePods(pod), this.o.launcher);
    const cfg = { vmi, launcher: pod, claim: input.claim, cfg: this.o.launcher };
    return {
      create: [
        ...(volumes.create === undefined ? [] : [newAttachmentPod({ ...cfg, volumes: volumes.create })]),
        ...devices.create,
      ],
      remove: [...orphans, ...volumes.remove, ...devices.remove],
    };
  }

  async sync(input: AttachmentSyncInput, ctx: ReconcileContext): Promise<AttachmentSyncResult> {
    const plan = this.plan(input);
    if (plan.create.length === 0 && plan.remove.length === 0) return {};
    const { key } = input;
    this.o.expectations.expectDeletions(
      key,
      plan.remove.map((p) => p.metadata.uid ?? ''),
    );
    this.o.expectations.raiseExpectations(key, plan.create.length, 0);
    for (const [i, manifest] of plan.create.entries()) {
      const failed = await this.create(input, manifest, ctx);
      if (failed !== undefined) {
        this.o.expectations.lowerExpectations(key, plan.create.length - i - 1, 0);
        for (const p of plan.remove) this.o.expectations.deletionObserved(key, p.metadata.uid ?? '');
        return failed;
      }
    }
    return this.remove(input, plan.remove);
  }

  private async create(
    input: AttachmentSyncInput,
    manifest: Pod,
    ctx: ReconcileContext,
  ): Promise<AttachmentSyncResult | undefined> {
    const { vmi } = input;
    try {
      const created = await this.o.client.create(PODS, manifest, {
        namespace: manifest.metadata.namespace ?? '',
      });
      const name = created.metadata.name ?? '';
      ctx.log.info('created attachment pod', { pod: name });
      this.o.recorder.event(vmi, 'Normal', 'SuccessfulCreate', `Created attachment pod ${name}`);
      return undefined;
    } catch (err) {
      this.o.expectations.lowerExpectations(input.key, 1, 0);
      this.o.recorder.event(
        vmi,
        'Warning',
        'FailedCreate',
        `Error creating attachment pod: ${errorMessage(err)}`,
      );
      const message = `Error creating attachment pod ${errorMessage(err)}`;
      return { failure: { reason: 'FailedCreate', message }, retry: err };
    }
  }

  private async remove(input: AttachmentSyncInput, pods: readonly Pod[]): Promise<AttachmentSyncResult> {
    const { key, vmi } = input;
    const result: AttachmentSyncResult = {};
    for (const p of pods) {
      const name = p.metadata.name ?? '';
      try {
        await this.o.client.delete(PODS, name, {
          namespace: p.metadata.namespace ?? '',
          gracePeriodSeconds: 0,
        });
        this.o.recorder.event(vmi, 'Normal', 'SuccessfulDelete', `Deleted attachment pod ${name}`);
      } catch (err) {
        this.o.expectations.deletionObserved(key, p.metadata.uid ?? '');
        if (isNotFound(err)) continue;
        this.o.recorder.event(vmi, 'Warning', 'FailedDelete', `Failed to delete attachment pod ${name}`);
        result.failure = {
          reason: 'FailedDelete',
          message: `Error deleting attachment pod ${errorMessage(err)}`,
        };
        result.retry = err;
      }
    }
    return result;
  }
}
