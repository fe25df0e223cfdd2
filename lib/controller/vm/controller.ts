/**
 * The VM controller's reconcile (kubevirt vm.go execute/sync/updateStatus), level-triggered on the VM key:
 * everything is read from the informer caches; one pass adds or drops the VM finalizer, carries out the run
 * decision (create or delete the VMI, switch Halted to Always on a Start request), applies volume requests and
 * the Deckhouse fork's resource claim requests to the template and the running VMI, carries a running VM's new
 * CPU sockets into its VMI or sets RestartRequired (live-update.ts), writes the status through
 * /status when it changed, and releases a final VMI. Writes are merge patches with the resourceVersion
 * precondition, creations and deletions are guarded by expectations, so a slow cache never yields a second VMI
 * (the VMI's name is the VM's, too).
 */
import { FINALIZERS, VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../kubevirt/index.ts';
import type {
  KubeVirt,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStatus,
} from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { ControllerExpectations, UIDTrackingExpectations } from '../../kernel/controller/expectations.ts';
import { controllerRefOf, newControllerRef } from '../../kernel/controller/owner.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { errorMessage, isAlreadyExists, isNotFound, KvError } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../kernel/controller/finalizers.ts';
import { StaleCacheGuard } from '../../kernel/controller/stale-guard.ts';
import { isFinal, isWaitingForSync } from '../../kubevirt/vmi-state.ts';
import { deepEqual, mergeDiff, mergePatch } from '../../kernel/controller/merge-patch.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import { decideRun, type RunDecision } from './run-strategy.ts';
import { hasStartRequest } from './state-change.ts';
import { computeVmStatus } from './vm-status.ts';
import { applyHotplugRequests, hasHotplugRequests } from './hotplug-requests.ts';
import { newVmiFromVm, VM_GVK } from './vmi-from-vm.ts';
import { clusterKubeVirt } from '../cluster-config.ts';
import { decideLiveUpdate, type JsonPatchOp, type LiveUpdateInput } from './live-update.ts';

/** KubeVirt's default cpuAllocationRatio: each vCPU requests a tenth of a CPU. */
const DEFAULT_CPU_ALLOCATION_RATIO = 10;

export interface VmControllerOptions {
  client: KubeClient;
  vms: StoreReader<VirtualMachine>;
  vmis: StoreReader<VirtualMachineInstance>;
  /** The KubeVirt CR (vmRolloutStrategy, cpuAllocationRatio); KubeVirt's defaults without one. */
  kubevirts?: StoreReader<KubeVirt>;
  clock: Clock;
  recorder: EventRecorder;
  /** Jitter of the start-failure backoff (default Math.random). */
  random?: () => number;
}

interface SyncState {
  key: string;
  vm: VirtualMachine;
  vmi: VirtualMachineInstance | undefined;
  /** A VMI of the VM's name that another owner controls: nothing is done to it. */
  foreign: boolean;
  failure?: SyncFailure;
  /** A write failed: requeue with backoff after the status is written. */
  writeError?: unknown;
  /**
   * A VMI was created in this sync: the status is left to the sync its creation event triggers, which sees
   * the VMI (one status write instead of two).
   */
  createdVmi?: boolean;
  /** Why a template change cannot be applied to the running VMI (the RestartRequired message). */
  restartRequired?: string;
}

const NO_ACTION: RunDecision = {
  reason: 'expectations-pending',
  createVmi: false,
  deleteVmi: false,
  addStartRequest: false,
  switchToAlways: false,
};

export class VmController {
  readonly expectations: UIDTrackingExpectations;
  /** VMs and VMIs this controller wrote whose new version the cache has not shown yet. */
  readonly stale: StaleCacheGuard;
  private readonly random: () => number;

  constructor(private readonly o: VmControllerOptions) {
    this.expectations = new UIDTrackingExpectations(new ControllerExpectations(o.clock));
    this.stale = new StaleCacheGuard(o.clock);
    this.random = o.random ?? Math.random;
  }

  readonly reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const cached = this.o.vms.get(key);
    if (cached === undefined) {
      this.expectations.deleteExpectations(key);
      this.stale.forget(key);
      return undefined;
    }
    if (this.stale.isStale(key, cached.metadata.resourceVersion)) {
      ctx.log.v(4).info('cache behind our last write, waiting for it');
      return undefined;
    }
    const st = this.initialState(key, cached);
    try {
      return await this.sync(st, ctx);
    } finally {
      if (st.vm.metadata.resourceVersion !== cached.metadata.resourceVersion) {
        this.stale.wrote(key, cached.metadata.resourceVersion);
      }
    }
  };

  private async sync(st: SyncState, ctx: ReconcileContext): Promise<ReconcileResult> {
    await this.adopt(st);
    const d = this.decide(st);
    if (d.failure === undefined && !st.foreign) {
      await this.act(st, d, ctx);
      await this.syncHotplugRequests(st);
      await this.syncLiveUpdate(st, ctx);
    }
    if (d.failure !== undefined) st.failure = d.failure;
    await this.writeStatus(st, d);
    await this.releaseFinalVmi(st);
    if (st.writeError !== undefined) {
      throw new KvError(
        'KV_ERR_INTERNAL',
        `syncing VirtualMachine ${st.key}: ${errorMessage(st.writeError)}`,
        {
          cause: st.writeError,
        },
      );
    }
    return d.requeueAfterMs === undefined ? undefined : { requeueAfterMs: d.requeueAfterMs };
  }

  private initialState(key: string, vm: VirtualMachine): SyncState {
    const vmi = this.o.vmis.get(key);
    const ref = vmi === undefined ? undefined : controllerRefOf(vmi);
    const foreign = ref !== undefined && ref.uid !== vm.metadata.uid;
    return { key, vm, vmi: foreign ? undefined : vmi, foreign };
  }

  private decide(st: SyncState): RunDecision {
    if (st.foreign || !this.expectations.satisfiedExpectations(st.key)) return NO_ACTION;
    return decideRun({ vm: st.vm, vmi: st.vmi, nowMs: this.o.clock.now() });
  }

  /** An orphan VMI of the VM's name is adopted (kubevirt ClaimVirtualMachineInstanceByName). */
  private async adopt(st: SyncState): Promise<void> {
    const { vm, vmi } = st;
    if (vmi === undefined || controllerRefOf(vmi) !== undefined) return;
    if (vm.metadata.deletionTimestamp !== undefined || vmi.metadata.deletionTimestamp !== undefined) return;
    const refs = [...(vmi.metadata.ownerReferences ?? []), newControllerRef(vm, VM_GVK)];
    st.vmi = await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, {
      obj: vmi,
      patch: {
        metadata: { ownerReferences: refs },
      },
    });
  }

  private async applyFinalizer(st: SyncState, runDecision: RunDecision): Promise<void> {
    if (runDecision.vmFinalizer === undefined) return;
    const fin = FINALIZERS.VIRTUAL_MACHINE_CONTROLLER;
    const finalizers =
      runDecision.vmFinalizer === 'add'
        ? addFinalizer(st.vm.metadata.finalizers, fin)
        : removeFinalizer(st.vm.metadata.finalizers, fin);
    st.vm = await mergePatch(this.o.client, VIRTUAL_MACHINES, {
      obj: st.vm,
      patch: { metadata: { finalizers } },
    });
  }

  /** The VM finalizer patch and the VMI write do not depend on each other: they run side by side. */
  private async act(st: SyncState, d: RunDecision, ctx: ReconcileContext): Promise<void> {
    const done = await Promise.allSettled([this.applyFinalizer(st, d), this.actOnVmi(st, d, ctx)]);
    for (const r of done) if (r.status === 'rejected') throw r.reason;
    if (d.switchToAlways) {
      const spec = st.vm.spec.runStrategy !== undefined ? { runStrategy: 'Always' } : { running: true };
      st.vm = await mergePatch(this.o.client, VIRTUAL_MACHINES, { obj: st.vm, patch: { spec } });
    }
  }

  private async actOnVmi(st: SyncState, d: RunDecision, ctx: ReconcileContext): Promise<void> {
    if (d.deleteVmi && st.vmi !== undefined) await this.deleteVmi(st, st.vmi, ctx);
    if (d.createVmi) await this.createVmi(st, ctx);
  }

  private async createVmi(st: SyncState, ctx: ReconcileContext): Promise<void> {
    const vmi = newVmiFromVm(st.vm);
    this.expectations.expectCreations(st.key, 1);
    try {
      await this.o.client.create(VIRTUAL_MACHINE_INSTANCES, vmi, { namespace: vmi.metadata.namespace ?? '' });
    } catch (err) {
      this.expectations.creationObserved(st.key);
      if (isAlreadyExists(err)) {
        ctx.log.info('VMI already exists, waiting for the cache', { name: vmi.metadata.name });
        return;
      }
      this.o.recorder.event(
        st.vm,
        'Warning',
        'FailedCreate',
        `Error creating virtual machine instance: ${errorMessage(err)}`,
      );
      st.failure = {
        reason: 'FailedCreate',
        message: `failed to create virtual machine instance: ${errorMessage(err)}`,
      };
      st.writeError = err;
      return;
    }
    st.createdVmi = true;
    ctx.log.info('started VM by creating its VMI', { name: vmi.metadata.name });
    this.o.recorder.event(
      st.vm,
      'Normal',
      'SuccessfulCreate',
      `Started the virtual machine by creating the new virtual machine instance ${vmi.metadata.name ?? ''}`,
    );
  }

  private async deleteVmi(st: SyncState, vmi: VirtualMachineInstance, ctx: ReconcileContext): Promise<void> {
    const uid = vmi.metadata.uid ?? '';
    this.expectations.expectDeletions(st.key, [uid]);
    try {
      await this.o.client.delete(VIRTUAL_MACHINE_INSTANCES, vmi.metadata.name ?? '', {
        namespace: vmi.metadata.namespace ?? '',
        preconditions: { uid },
      });
    } catch (err) {
      this.expectations.deletionObserved(st.key, uid);
      if (isNotFound(err)) return;
      this.o.recorder.event(
        st.vm,
        'Warning',
        'FailedDelete',
        `Error deleting virtual machine instance ${vmi.metadata.name ?? ''}: ${errorMessage(err)}`,
      );
      st.failure = {
        reason: 'FailedDelete',
        message: `failed to delete virtual machine instance: ${errorMessage(err)}`,
      };
      st.writeError = err;
      return;
    }
    ctx.log.info('stopped VM by deleting its VMI', { name: vmi.metadata.name, uid });
    this.o.recorder.event(
      st.vm,
      'Normal',
      'SuccessfulDelete',
      `Stopped the virtual machine by deleting the virtual machine instance ${uid}`,
    );
  }

  /**
   * status.volumeRequests and status.resourceClaimRequests go into the template (once expectations are met)
   * and into a live VMI, whose controller and launcher hotplug the volumes and DRA host devices.
   */
  private async syncHotplugRequests(st: SyncState): Promise<void> {
    const status = st.vm.status;
    if (!hasHotplugRequests(status) || !this.expectations.satisfiedExpectations(st.key)) return;
    if (st.vm.metadata.deletionTimestamp !== undefined) return;
    const template = st.vm.spec.template.spec;
    const wanted = applyHotplugRequests(template, status);
    const diff = mergeDiff(template, wanted);
    const vmi = st.vmi;
    const live = vmi !== undefined && vmi.metadata.deletionTimestamp === undefined && !isFinal(vmi);
    if (diff !== undefined) {
      st.vm = await mergePatch(this.o.client, VIRTUAL_MACHINES, {
        obj: st.vm,
        patch: {
          spec: { template: { spec: diff } },
        },
      });
    }
    if (!live) return;
    const vmiDiff = mergeDiff(vmi.spec, applyHotplugRequests(vmi.spec, status));
    if (vmiDiff !== undefined) {
      st.vmi = await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, {
        obj: vmi,
        patch: { spec: vmiDiff },
      });
    }
  }

  /** The cluster's rollout strategy and CPU allocation ratio, KubeVirt's defaults without a KubeVirt CR. */
  private liveUpdateSettings(): Pick<LiveUpdateInput, 'rolloutStrategy' | 'cpuAllocationRatio'> {
    const config = clusterKubeVirt(this.o.kubevirts?.list() ?? [])?.spec.configuration;
    return {
      rolloutStrategy: config?.vmRolloutStrategy ?? 'LiveUpdate',
      cpuAllocationRatio: config?.developerConfiguration?.cpuAllocationRatio ?? DEFAULT_CPU_ALLOCATION_RATIO,
    };
  }

  /**
   * A running VM's new CPU sockets or guest memory go into its VMI under LiveUpdate; what cannot go live is
   * RestartRequired (live-update.ts).
   */
  private async syncLiveUpdate(st: SyncState, ctx: ReconcileContext): Promise<void> {
    if (!this.expectations.satisfiedExpectations(st.key) || st.vm.metadata.deletionTimestamp !== undefined)
      return;
    const d = decideLiveUpdate({ vm: st.vm, vmi: st.vmi, ...this.liveUpdateSettings() });
    if (d.kind === 'restartRequired') st.restartRequired = d.message;
    if (d.kind === 'wait') ctx.log.v(3).info('live update waits', { why: d.reason });
    if (d.kind === 'patchVmi') await this.patchVmiLive(st, d, ctx);
  }

  private async patchVmiLive(
    st: SyncState,
    { area, patch }: { area: 'cpu' | 'memory'; patch: readonly JsonPatchOp[] },
    ctx: ReconcileContext,
  ): Promise<void> {
    const vmi = st.vmi;
    if (vmi === undefined) return;
    try {
      st.vmi = await this.o.client.patch<VirtualMachineInstance>(
        VIRTUAL_MACHINE_INSTANCES,
        vmi.metadata.name ?? '',
        patch,
        { type: 'json', namespace: vmi.metadata.namespace ?? '' },
      );
      const domain = st.vm.spec.template.spec.domain;
      if (area === 'cpu') ctx.log.info('hotplugging CPU sockets', { sockets: domain.cpu?.sockets });
      else ctx.log.info('hotplugging memory', { guest: String(domain.memory?.guest) });
    } catch (err) {
      st.failure =
        area === 'cpu'
          ? {
              reason: 'HotPlugCPUError',
              message: `Error encountered while handling CPU change request: ${errorMessage(err)}`,
            }
          : {
              reason: 'HotPlugMemoryError',
              message: `error encountered while handling memory hotplug requests: ${errorMessage(err)}`,
            };
      st.writeError = err;
    }
  }

  private async writeStatus(st: SyncState, runDecision: RunDecision): Promise<void> {
    // A VMI created for a Start request consumed it: drop it now, or a VMI that ends before the next sync
    // (which KubeVirt waits for to trim it) would be started again. Otherwise the creation's own event
    // brings the status write.
    const consumedStart = st.createdVmi === true && hasStartRequest(st.vm);
    if (st.createdVmi === true && !consumedStart) return;
    const status = this.desiredStatus(st);
    if (consumedStart) setRequests(status, status.stateChangeRequests?.slice(1));
    if (runDecision.addStartRequest)
      setRequests(status, [...(status.stateChangeRequests ?? []), { action: 'Start' }]);
    const current = st.vm.status ?? {};
    if (deepEqual(current, status)) return;
    const diff = mergeDiff(current, status) as Record<string, unknown>;
    st.vm = await mergePatch(this.o.client, VIRTUAL_MACHINES, {
      obj: st.vm,
      patch: { status: diff },
      subresource: 'status',
    });
  }

  private desiredStatus(st: SyncState): VirtualMachineStatus {
    const exp = this.expectations.expectations.getExpectations(st.key);
    return computeVmStatus({
      vm: st.vm,
      vmi: st.vmi,
      failure: st.failure,
      startExpected: (exp?.add ?? 0) > 0,
      stopExpected: (exp?.del ?? 0) > 0,
      nowMs: this.o.clock.now(),
      random: this.random,
      ...(st.restartRequired !== undefined && { restartRequired: st.restartRequired }),
    });
  }

  /** Drops the VM controller's finalizer from a final VMI once its state is recorded on the VM. */
  private async releaseFinalVmi(st: SyncState): Promise<void> {
    const vmi = st.vmi;
    if (vmi === undefined || !hasFinalizer(vmi, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER)) return;
    const deletedWhileWaiting = isWaitingForSync(vmi) && vmi.metadata.deletionTimestamp !== undefined;
    if (!isFinal(vmi) && !deletedWhileWaiting) return;
    const finalizers = removeFinalizer(vmi.metadata.finalizers, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER);
    st.vmi = await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, {
      obj: vmi,
      patch: { metadata: { finalizers } },
    });
  }
}

function setRequests(status: VirtualMachineStatus, reqs: VirtualMachineStatus['stateChangeRequests']): void {
  if (reqs === undefined || reqs.length === 0) delete status.stateChangeRequests;
  else status.stateChangeRequests = reqs;
}
