/**
 * The handler's VMI controller (kubevirt pkg/virt-handler/vm.go execute/sync), keyed by `ns/name` of the VMIs of
 * this node. Each reconcile reads the VMI from the cache (or, once it is gone, the last one seen), pings its
 * launcher, reads the domain with GetDomain, does what decide.ts says (SyncVirtualMachine unless the launcher
 * applied this spec already; ACPI shutdown, Kill after the grace period, DeleteVirtualMachine) and a CPU
 * hotplug (cpu-hotplug.ts), then writes the status of status.ts when it changed (LiveMigratable too, from the
 * cluster's binding plugins). Notify events and informer events only enqueue; a VMI the node runs is
 * looked at again every resyncMs, so a launcher that stops answering is noticed.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { deepEqual, mergePatch, scopedMergePatch } from '../../kernel/controller/merge-patch.ts';
import type { ReconcileContext, ReconcileResult } from '../../kernel/controller/runner.ts';
import { StaleCacheGuard } from '../../kernel/controller/stale-guard.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { isDisconnected, vmiSpecChecksum, type DomainJson, type LauncherClient } from '../../rpc/index.ts';
import type { LauncherClients } from '../launchers/clients.ts';
import type { HotplugOutcome } from '../hotplug/plan.ts';
import type { NotifiedDomains } from '../notify/domains.ts';
import type { NotifyServer } from '../notify/server.ts';
import { syncCpuHotplug, type CpuTopology } from './cpu-hotplug.ts';
import { syncMemoryHotplug, type MemoryHotplugOutcome } from './memory-hotplug.ts';
import { decideAction, type HandlerAction } from './decide.ts';
import { migrationInProgress } from '../migration/role.ts';
import { syncOptions, type HandlerClusterConfig } from './options.ts';
import { acpiEnabled, type LauncherReach } from './phase.ts';
import { computeHandlerStatus } from './status.ts';

/** The node side of hotplug (lib/handler/hotplug/mounter.ts). */
interface HotplugNode {
  /** Mounts and unmounts what the VMI asks for; the volumes mounted afterwards, and those refused with why. */
  reconcile(
    vmi: VirtualMachineInstance,
    launcherPodUid: string,
    inDomain: ReadonlySet<string>,
  ): Promise<HotplugOutcome>;
  /** Takes every hotplug mount off the launcher Pod: its guest is gone. */
  release(vmi: VirtualMachineInstance, launcherPodUid: string): Promise<unknown>;
}

/** The node side of the Pod network (lib/handler/network/setup.ts). */
interface PodNetworkNode {
  /** Connects the VMI's Pod network interfaces in its launcher Pod's namespace, once per Pod. */
  prepare(vmi: VirtualMachineInstance, launcherPodUid: string): Promise<void>;
  /** The addresses of the Pod interfaces prepare found, by VMI interface name. */
  podIps(launcherPodUid: string): ReadonlyMap<string, readonly string[]>;
  forget(launcherPodUid: string): void;
}

export interface HandlerVmiControllerOptions {
  /** Speaks kubevirt.io. */
  readonly client: KubeClient;
  readonly vmis: StoreReader<VirtualMachineInstance>;
  readonly node: string;
  readonly launchers: LauncherClients;
  readonly notify: NotifyServer;
  /** The domains launchers last reported (default: none kept). */
  readonly notified?: NotifiedDomains;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  /** The cluster's settings now (the KubeVirt resource, read live). */
  readonly config: () => HandlerClusterConfig;
  /** Mounts the hotplug volumes into the launcher Pod (default: none are). */
  readonly hotplug?: HotplugNode;
  /** Sets up the Pod network before a launcher syncs (default: nothing is set up). */
  readonly network?: PodNetworkNode;
  /** How often a VMI this node runs is looked at without an event (default 15 s). */
  readonly resyncMs?: number;
}

const SYNC_FAILED = 'Synchronizing with the Domain failed.';
/** What the Synchronized condition of a VMI whose launcher went away says (the VMI is then Failed). */
const UNRESPONSIVE: SyncFailure = {
  reason: 'LauncherUnresponsive',
  message: 'virt-launcher stopped answering (its socket is gone or Ping failed past its deadline)',
};
const DEFAULT_GRACE_SECONDS = 30;
const NO_HOTPLUG: HotplugOutcome = { mounted: new Set(), refused: new Map() };
/** How soon a VMI whose launcher does not answer yet is looked at again. */
const LAUNCHER_POLL_MS = 200;
const OWNED = [
  'phase',
  'phaseTransitionTimestamps',
  'conditions',
  'guestOSInfo',
  'fsFreezeStatus',
  'machine',
  'memory',
  'volumeStatus',
  'interfaces',
  'currentCPUTopology',
  // Whether a migration copies disks (migratable.ts); the handler's migration controller reads it.
  'migrationMethod',
  // The fork's phase and address of each DRA device (device-phase.ts); the rest of each entry is the DRA status
  // controller's, written back as the handler read it (the resourceVersion precondition refuses a stale copy).
  'deviceStatus',
] as const;

const PHASE_EVENTS: Readonly<Record<string, [type: 'Normal' | 'Warning', message: string]>> = {
  Running: ['Normal', 'VirtualMachineInstance started.'],
  Succeeded: ['Normal', 'The VirtualMachineInstance was shut down.'],
  Failed: ['Warning', 'The VirtualMachineInstance crashed.'],
};

function checked(r: { success: boolean; message: string }, what: string): void {
  if (!r.success) throw new KvError('KV_ERR_LAUNCHER', `${what}: ${r.message}`);
}

/** One action of a sync, on the VMI (or the last one seen of it) and its launcher. */
interface Step {
  readonly action: HandlerAction;
  readonly vmi: VirtualMachineInstance;
  readonly client: LauncherClient | undefined;
  readonly domain: DomainJson | undefined;
  readonly log: Logger;
}

export class HandlerVmiController {
  /** The last VMI seen per key, to finish a domain after its VMI is gone. */
  private readonly known = new Map<string, VirtualMachineInstance>();
  /** When the ACPI shutdown of a VMI's domain was asked for (by uid). */
  private readonly shutdownAt = new Map<string, number>();
  private readonly stale: StaleCacheGuard;

  constructor(private readonly o: HandlerVmiControllerOptions) {
    this.stale = new StaleCacheGuard(o.clock);
  }

  private mine(vmi: VirtualMachineInstance): boolean {
    return vmi.status?.nodeName === this.o.node;
  }

  /** The VMI of this node under key (undefined once gone), and the last one seen of it. */
  private seen(
    key: string,
  ): { vmi: VirtualMachineInstance | undefined; last: VirtualMachineInstance } | undefined {
    const cached = this.o.vmis.get(key);
    const vmi = cached !== undefined && this.mine(cached) ? cached : undefined;
    const last = vmi ?? this.known.get(key);
    if (last === undefined) return undefined;
    if (vmi !== undefined) this.known.set(key, vmi);
    return { vmi, last };
  }

  /** The launcher's reach, client and current domain. */
  private async observe(
    vmi: VirtualMachineInstance,
    alive: boolean,
  ): Promise<{ reach: LauncherReach; client: LauncherClient | undefined; domain: DomainJson | undefined }> {
    const paths = this.o.launchers.paths(vmi);
    // A finished VMI's launcher Pod may be gone with its directory: there is no launcher to hear from.
    if (paths !== undefined && alive && !isFinal(vmi)) await this.o.notify.listenFor(vmi, paths);
    const reach = await this.o.launchers.probe(vmi);
    const client = await this.o.launchers.client(vmi);
    const stopped = this.o.notified?.stopped(vmi.metadata.uid ?? '');
    if (client === undefined) return { reach, client, domain: stopped };
    try {
      return { reach, client, domain: await this.readDomain(client) };
    } catch (err) {
      // It reported its guest stopped, then closed its socket (as a launcher does on its way out): go by
      // what it said last, without it, rather than wait until it counts as unresponsive.
      if (stopped !== undefined && isDisconnected(err)) return { reach, client: undefined, domain: stopped };
      throw err;
    }
  }

  readonly reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult> => {
    const seen = this.seen(key);
    if (seen === undefined) return undefined;
    const { vmi, last } = seen;
    if (vmi !== undefined && this.stale.isStale(key, vmi.metadata.resourceVersion)) return undefined;
    const { reach, client, domain } = await this.observe(last, vmi !== undefined);
    const action = decideAction({ vmi, domain, launcher: reach });
    ctx.log
      .v(3)
      .info('handler sync', { action, phase: last.status?.phase, domain: domain?.Status.Status ?? 'none' });
    const acted = await this.tryAct({ action, vmi: last, client, domain, log: ctx.log });
    const now =
      action === 'sync' && acted === undefined ? await this.domainAfterSync(client, domain) : domain;
    const hotplug = await this.tryHotplug({ vmi, last }, client, now, ctx.log);
    const step = { vmi, client, domain: now, recorder: this.o.recorder, log: ctx.log };
    const cpuTopology = await syncCpuHotplug(step);
    const memoryHotplug = await syncMemoryHotplug(step);
    const failure = acted ?? hotplug.failure;
    await this.report(
      key,
      { vmi, last },
      { domain: now, reach, client, failure, hotplug, cpuTopology, memoryHotplug },
    );
    if (reach.failing === true && !reach.unresponsive) return { requeueAfterMs: 1000 };
    return this.next(action, vmi, client, failure);
  };

  /** What the sync made of the domain, for this status write rather than the next one. */
  private async domainAfterSync(
    client: LauncherClient | undefined,
    before: DomainJson | undefined,
  ): Promise<DomainJson | undefined> {
    return client === undefined ? before : this.readDomain(client).catch(() => before);
  }

  /** Writes what the sync found, or, once the VMI and its domain are gone, forgets the VMI. */
  private async report(
    key: string,
    seen: { vmi: VirtualMachineInstance | undefined; last: VirtualMachineInstance },
    i: {
      domain: DomainJson | undefined;
      reach: LauncherReach;
      client: LauncherClient | undefined;
      failure: SyncFailure | undefined;
      hotplug: HotplugOutcome;
      cpuTopology: CpuTopology | undefined;
      memoryHotplug: MemoryHotplugOutcome | undefined;
    },
  ): Promise<void> {
    // A launcher that went away after its guest stopped did its job: no failure to report.
    const gone = i.reach.unresponsive && i.domain === undefined;
    const failure = i.failure ?? (gone ? UNRESPONSIVE : undefined);
    // During a migration the migration controller's passes write the VMI (migration/controller.ts).
    if (seen.vmi !== undefined && migrationInProgress(seen.vmi, i.domain)) return;
    if (seen.vmi !== undefined)
      await this.writeStatus(key, seen.vmi, {
        domain: i.domain,
        reach: i.reach,
        failure,
        hotplug: i.hotplug,
        cpuTopology: i.cpuTopology,
        memoryHotplug: i.memoryHotplug,
      });
    else if (i.domain === undefined || i.client === undefined) this.finish(key, seen.last);
  }

  /** Does the action; a failure is returned (and recorded as a SyncFailed event), never thrown. */
  private async tryAct(step: Step): Promise<SyncFailure | undefined> {
    try {
      await this.act(step);
      return undefined;
    } catch (err) {
      const failure = { reason: SYNC_FAILED, message: errorMessage(err) };
      this.o.recorder.event(step.vmi, 'Warning', 'SyncFailed', failure.message);
      return failure;
    }
  }

  /**
   * Brings the hotplug mounts of a running VMI in line; a failure is returned like a sync failure, and each
   * refused volume is a HotplugFailed warning (KubeVirt's) on the VMI. Once the VMI is final or gone from this
   * node (stopped, migrated away) and its domain is gone or its launcher silent, every mount comes off its
   * launcher Pod, so that the kubelet can remove the Pod's directory.
   */
  private async tryHotplug(
    seen: { vmi: VirtualMachineInstance | undefined; last: VirtualMachineInstance },
    client: LauncherClient | undefined,
    domain: DomainJson | undefined,
    log: Logger,
  ): Promise<HotplugOutcome & { failure?: SyncFailure }> {
    const { vmi, last } = seen;
    // The launcher Pod LauncherClients trusts for the VMI, the one whose launcher answered.
    const podUid = this.o.launchers.paths(last)?.podUid;
    if (this.o.hotplug === undefined || podUid === undefined) return NO_HOTPLUG;
    if (vmi === undefined || isFinal(vmi)) return this.releaseHotplug(last, podUid, { client, domain }, log);
    if (client === undefined) return NO_HOTPLUG;
    const inDomain = new Set((domain?.Spec.Devices.Disks ?? []).map((d) => d.Alias.Name));
    try {
      const outcome = await this.o.hotplug.reconcile(vmi, podUid, inDomain);
      for (const message of outcome.refused.values())
        this.o.recorder.event(vmi, 'Warning', 'HotplugFailed', message);
      return outcome;
    } catch (err) {
      const failure = { reason: SYNC_FAILED, message: errorMessage(err) };
      this.o.recorder.event(vmi, 'Warning', 'SyncFailed', failure.message);
      return { ...NO_HOTPLUG, failure };
    }
  }

  /** The mounts of a final or departed VMI's launcher Pod come off once its guest is gone (domain or launcher). */
  private async releaseHotplug(
    vmi: VirtualMachineInstance,
    podUid: string,
    seen: { client: LauncherClient | undefined; domain: DomainJson | undefined },
    log: Logger,
  ): Promise<HotplugOutcome> {
    if (seen.client !== undefined && seen.domain !== undefined) return NO_HOTPLUG;
    await this.o.hotplug?.release(vmi, podUid).catch((err: unknown) => {
      log.warning('hotplug mounts not released', { name: vmi.metadata.name, reason: errorMessage(err) });
    });
    return NO_HOTPLUG;
  }

  private next(
    action: HandlerAction,
    vmi: VirtualMachineInstance | undefined,
    client: LauncherClient | undefined,
    failure: SyncFailure | undefined,
  ): ReconcileResult {
    if (failure !== undefined) throw new KvError('KV_ERR_LAUNCHER', failure.message);
    if (action === 'shutdown' || action === 'delete') return { requeueAfterMs: 1000 };
    if (action === 'wait') return { requeueAfterMs: 5000 };
    if (vmi === undefined) return undefined;
    const phase = vmi.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return undefined;
    // A launcher Pod is Ready a second or so before its launcher listens: look again soon.
    return { requeueAfterMs: client === undefined ? LAUNCHER_POLL_MS : (this.o.resyncMs ?? 15_000) };
  }

  private async readDomain(client: LauncherClient): Promise<DomainJson | undefined> {
    const r = await client.getDomain();
    checked(r, 'GetDomain');
    return r.payload as DomainJson | undefined;
  }

  private async act({ action, vmi, client, domain, log }: Step): Promise<void> {
    if (client === undefined) return;
    switch (action) {
      case 'sync':
        return this.sync(vmi, client, domain, log);
      case 'shutdown':
        return this.shutdown(vmi, client);
      case 'delete':
        checked(await client.vmiCommand('deleteVirtualMachine', vmi), 'DeleteVirtualMachine');
        this.shutdownAt.delete(vmi.metadata.uid ?? '');
        return;
      case 'wait':
      case 'none':
        return;
    }
  }

  private async sync(
    vmi: VirtualMachineInstance,
    client: LauncherClient,
    domain: DomainJson | undefined,
    log: Logger,
  ): Promise<void> {
    // Once per launcher Pod; a handler that restarted reads the Pod's addresses again here.
    const podUid = this.o.launchers.paths(vmi)?.podUid;
    if (this.o.network !== undefined && podUid !== undefined) await this.o.network.prepare(vmi, podUid);
    if (domain !== undefined) {
      const applied = await client.getAppliedVmiChecksum();
      if (applied.success && applied.checksum === vmiSpecChecksum(vmi)) return;
    }
    const started = this.o.clock.now();
    checked(await client.syncVirtualMachine(vmi, syncOptions(vmi, this.o.config())), 'SyncVirtualMachine');
    log.v(2).info('launcher synced', { name: vmi.metadata.name, ms: this.o.clock.now() - started });
  }

  /** ACPI shutdown first (when the guest has ACPI), Kill once the grace period is over. */
  private async shutdown(vmi: VirtualMachineInstance, client: LauncherClient): Promise<void> {
    const uid = vmi.metadata.uid ?? '';
    const started = this.shutdownAt.get(uid);
    const grace = (vmi.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
    if (started === undefined && acpiEnabled(vmi) && grace > 0) {
      checked(await client.vmiCommand('shutdownVirtualMachine', vmi), 'ShutdownVirtualMachine');
      this.shutdownAt.set(uid, this.o.clock.now());
      return;
    }
    if (started !== undefined && this.o.clock.now() - started < grace) return;
    checked(await client.vmiCommand('killVirtualMachine', vmi), 'KillVirtualMachine');
  }

  private async writeStatus(
    key: string,
    vmi: VirtualMachineInstance,
    i: {
      domain: DomainJson | undefined;
      reach: LauncherReach;
      failure: SyncFailure | undefined;
      hotplug: HotplugOutcome;
      cpuTopology: CpuTopology | undefined;
      memoryHotplug: MemoryHotplugOutcome | undefined;
    },
  ): Promise<void> {
    const next = computeHandlerStatus({
      vmi,
      podIps: this.podIps(vmi),
      domain: i.domain,
      launcher: i.reach,
      mountedHotplug: i.hotplug.mounted,
      refusedHotplug: i.hotplug.refused,
      migratable: { networkBindings: this.o.config().networkBindings },
      nowMs: this.o.clock.now(),
      ...(i.failure !== undefined && { failure: i.failure }),
      ...(i.cpuTopology !== undefined && { cpuTopology: i.cpuTopology }),
      ...(i.memoryHotplug !== undefined && { memoryHotplug: i.memoryHotplug }),
    });
    if (deepEqual(vmi.status, next.status)) return;
    const patch = scopedMergePatch(vmi, next, { top: { status: OWNED } });
    if (patch === undefined) return;
    const written = await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, { obj: vmi, patch });
    this.stale.wrote(key, vmi.metadata.resourceVersion);
    this.known.set(key, written);
    const phase = next.status?.phase ?? '';
    const event = PHASE_EVENTS[phase];
    if (phase !== vmi.status?.phase && event !== undefined)
      this.o.recorder.event(next, event[0], phase === 'Running' ? 'Started' : 'Stopped', event[1]);
  }

  /** The addresses of the VMI's Pod interfaces, as the network setup found them. */
  private podIps(vmi: VirtualMachineInstance): ReadonlyMap<string, readonly string[]> {
    const podUid = this.o.launchers.paths(vmi)?.podUid;
    return (podUid === undefined ? undefined : this.o.network?.podIps(podUid)) ?? new Map();
  }

  /** The VMI is gone and its domain too: forget its launcher and its notify pipe. */
  private finish(key: string, last: VirtualMachineInstance): void {
    const paths = this.o.launchers.paths(last);
    if (paths !== undefined) {
      void this.o.notify.stopFor(paths);
      this.o.network?.forget(paths.podUid);
    }
    this.o.launchers.forget(last.metadata.uid ?? '');
    this.o.notified?.forget(last.metadata.uid ?? '');
    this.shutdownAt.delete(last.metadata.uid ?? '');
    this.known.delete(key);
    this.stale.forget(key);
  }
}
