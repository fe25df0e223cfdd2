/**
 * The VMI status the handler owns, from the domain its launcher reports (kubevirt pkg/virt-handler/vm.go
 * updateVMIStatus, updateVMIStatusFromDomain, updateVMIConditions). Pure: a final VMI is left as it is;
 * otherwise the new VMI carries
 * - guestOSInfo, fsFreezeStatus, machine type, the guest's current memory and CPU topology from the domain;
 * - status.interfaces from the domain's interfaces and the Pod interfaces' addresses (interfaces-status.ts);
 * - volume targets from the domain's disks, and hotplug volumes MountedToPod → Ready (or UnMountedFromPod once
 *   gone from the spec), with KubeVirt's reasons and messages; a volume the node refused to mount says why
 *   (reason HotplugFailed, KubeVirt's event reason) and is AttachedToNode at most, never mounted;
 * - the Deckhouse fork's phase and address of each DRA device (device-phase.ts);
 * - the device the launcher failed to attach in this sync, why, on its volume or device status;
 * - the phase of phase.ts, with its transition timestamp;
 * - conditions AgentConnected (the agent channel connected), Paused (with KubeVirt's reasons), Synchronized
 *   (False with this sync's failure), LiveMigratable and StorageLiveMigratable, and status.migrationMethod
 *   (migratable.ts: KubeVirt's updateLiveMigrationConditions, on every sync of a VMI that is not final);
 * - status.currentCPUTopology after a CPU hotplug, and HotVCPUChange dropped once nothing is left to plug;
 * - status.memory.guestRequested after a memory hotplug, HotMemoryChange dropped or False (memory-hotplug.ts).
 */
import {
  withPhaseTransition,
  withSyncFailure,
  findCondition,
  upsertCondition,
  withoutCondition,
} from '../../kubevirt/conditions.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import {
  DRA_GPU_ALIAS_PREFIX,
  DRA_HOST_DEVICE_ALIAS_PREFIX,
  formatBinaryQuantity,
  type DeviceStatusInfo,
  HOTPLUG_ATTACHED_PHASES,
  HOTPLUG_MOUNTED_PHASES,
  HOT_VCPU_CHANGE,
  requiresCpuHotplug,
  type VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceCondition } from '../../kubevirt/v1/vmi-status.ts';
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import { AGENT_CHANNEL, parseAttachFailure, type AttachFailure, type DomainJson } from '../../rpc/index.ts';
import { withDevicePhases } from './device-phase.ts';
import { interfacesStatus } from './interfaces-status.ts';
import { withMemoryHotplug, type MemoryHotplugOutcome } from './memory-hotplug.ts';
import { migratability, type MigratableFacts } from './migratable.ts';
import { domainPhase, type LauncherReach } from './phase.ts';

export interface HandlerStatusInput {
  readonly vmi: VirtualMachineInstance;
  /** The domain the launcher reports now; undefined when it has none (or cannot be reached). */
  readonly domain: DomainJson | undefined;
  readonly launcher: LauncherReach;
  /** Hotplug volumes whose disk is mounted into the launcher Pod (hotplug-disks dir). */
  readonly mountedHotplug: ReadonlySet<string>;
  /** Hotplug volumes the node refused to mount, with why. */
  readonly refusedHotplug?: ReadonlyMap<string, string>;
  /** The addresses of each VMI interface's Pod interface, by interface name (interfaces-status.ts). */
  readonly podIps?: ReadonlyMap<string, readonly string[]>;
  /** The vCPU topology a CPU hotplug gave the domain in this sync (cpu-hotplug.ts). */
  readonly cpuTopology?: NonNullable<Status['currentCPUTopology']>;
  /** What a memory hotplug in this sync came to (memory-hotplug.ts). */
  readonly memoryHotplug?: MemoryHotplugOutcome;
  /** The cluster's binding plugins (and the node's host CPU model, when known) for LiveMigratable. */
  readonly migratable: MigratableFacts;
  /** What went wrong in this sync, for the Synchronized condition. */
  readonly failure?: SyncFailure;
  readonly nowMs: number;
}

type Status = NonNullable<VirtualMachineInstance['status']>;
type VolumeStatus = NonNullable<Status['volumeStatus']>[number];
type Cond = VirtualMachineInstanceCondition;

const VOLUME_REASONS = {
  mounted: 'VolumeMountedToPod',
  unmounted: 'VolumeUnMountedFromPod',
  ready: 'VolumeReady',
  failed: 'HotplugFailed',
} as const;

const isFinal = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.phase === 'Succeeded' || vmi.status?.phase === 'Failed';

function guestFacts(status: Status, domain: DomainJson): void {
  const os = domain.Status.OSInfo;
  if (os.Name !== '' && status.guestOSInfo?.name !== os.Name) {
    status.guestOSInfo = {
      name: os.Name,
      version: os.Version,
      kernelRelease: os.KernelRelease,
      prettyName: os.PrettyName,
      versionId: os.VersionId,
      kernelVersion: os.KernelVersion,
      machine: os.Machine,
      id: os.Id,
    };
  }
  // As KubeVirt: thawed clears the field, a domain that does not say leaves it as it was.
  const freeze = domain.Status.FSFreezeStatus.Status;
  if (freeze === 'thawed') delete status.fsFreezeStatus;
  else if (freeze !== '') status.fsFreezeStatus = freeze;
  const machine = domain.Spec.OS?.Type.Machine ?? '';
  if (machine !== '') status.machine = { type: machine };
  const mem = domain.Spec.Memory;
  if (mem !== undefined) status.memory = { ...status.memory, guestCurrent: formatBinaryQuantity(mem.Value) };
  // currentCPUTopology is the spec's, set by the defaults (KubeVirt's setCurrentCPUTopologyStatus) and by a CPU
  // hotplug (cpuTopology below): the domain's topology is the most the guest may grow to, and the fork's
  // dynamic-cores marker swaps it too.
}

/** A CPU hotplug this sync applied is recorded; HotVCPUChange goes once the domain has the spec's count. */
function cpuHotplug(status: Status, i: HandlerStatusInput, out: VirtualMachineInstance): void {
  if (i.cpuTopology !== undefined) status.currentCPUTopology = { ...i.cpuTopology };
  if (!requiresCpuHotplug(out)) setCondition(status, HOT_VCPU_CHANGE, undefined);
}

/** Not mounted, and why: a phase that says mounted (forged, or left from a mount that is gone) goes back. */
function refusedPhase(v: VolumeStatus, message: string): VolumeStatus {
  const phase = HOTPLUG_MOUNTED_PHASES.includes(v.phase) ? 'AttachedToNode' : v.phase;
  return { ...v, ...(phase !== undefined && { phase }), reason: VOLUME_REASONS.failed, message };
}

function hotplugPhase(
  v: VolumeStatus,
  inSpec: boolean,
  mounted: boolean,
  refused: string | undefined,
): VolumeStatus {
  if (v.target !== '') {
    return {
      ...v,
      phase: 'Ready',
      reason: VOLUME_REASONS.ready,
      message: `Successfully attach hotplugged volume ${v.name} to VM`,
    };
  }
  if (refused !== undefined && !mounted) return refusedPhase(v, refused);
  const phase = v.phase ?? '';
  if (mounted && inSpec && ['Bound', 'Pending', 'AttachedToNode'].includes(phase)) {
    return {
      ...v,
      phase: 'MountedToPod',
      reason: VOLUME_REASONS.mounted,
      message: `Volume ${v.name} has been mounted in virt-launcher pod`,
    };
  }
  if (!mounted && !inSpec && HOTPLUG_ATTACHED_PHASES.includes(phase)) {
    return {
      ...v,
      phase: 'UnMountedFromPod',
      reason: VOLUME_REASONS.unmounted,
      message: `Volume ${v.name} has been unmounted from virt-launcher pod`,
    };
  }
  return v;
}

function volumes(status: Status, i: HandlerStatusInput): void {
  if (status.volumeStatus === undefined || status.volumeStatus.length === 0) return;
  const targets = new Map<string, string>();
  for (const d of i.domain?.Spec.Devices.Disks ?? []) {
    if ((d.Source.File ?? d.Source.Dev ?? '') !== '') targets.set(d.Alias.Name, d.Target.Device);
  }
  const inSpec = new Set((i.vmi.spec.volumes ?? []).map((v) => v.name));
  status.volumeStatus = status.volumeStatus
    .map((v) => {
      const withTarget = { ...v, target: targets.get(v.name) ?? '' };
      if (v.hotplugVolume === undefined) return withTarget;
      const mounted = i.mountedHotplug.has(v.name);
      return hotplugPhase(withTarget, inSpec.has(v.name), mounted, i.refusedHotplug?.get(v.name));
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The device this sync's launcher failed to attach (lib/rpc attach-failure.ts) says why on its status: a
 * mounted hotplug volume keeps MountedToPod with reason HotplugFailed and libvirt's words (until it attaches,
 * or the next refusal says something else); a DRA device's entry gets the same reason and message, which the
 * next device phases drop.
 */
function attachFailed(status: Status, f: AttachFailure | undefined): void {
  if (f === undefined) return;
  const failed = {
    reason: VOLUME_REASONS.failed,
    message: `failed to attach ${f.kind} ${f.name} to the domain: ${f.cause}`,
  };
  if (f.kind === 'volume') {
    const failing = (v: VolumeStatus): boolean =>
      v.name === f.name && v.hotplugVolume !== undefined && v.phase === 'MountedToPod';
    if (status.volumeStatus !== undefined)
      status.volumeStatus = status.volumeStatus.map((v) => (failing(v) ? { ...v, ...failed } : v));
    return;
  }
  const ds = status.deviceStatus;
  const mark = (list: DeviceStatusInfo[], prefix: string): DeviceStatusInfo[] =>
    list.map((d) => (`${prefix}${d.name}` === f.name ? { ...d, ...failed } : d));
  if (ds?.hostDeviceStatuses !== undefined)
    ds.hostDeviceStatuses = mark(ds.hostDeviceStatuses, DRA_HOST_DEVICE_ALIAS_PREFIX);
  if (ds?.gpuStatuses !== undefined) ds.gpuStatuses = mark(ds.gpuStatuses, DRA_GPU_ALIAS_PREFIX);
}

const PAUSED: Readonly<Record<string, { reason: string; message: string }>> = {
  User: { reason: 'PausedByUser', message: 'VMI was paused by user' },
  IOError: { reason: 'PausedIOError', message: 'VMI was paused, low-level IO error detected' },
  Migration: { reason: 'PausedByMigrationMonitor', message: 'VMI was paused by the migration monitor' },
};

function setCondition(status: Status, type: string, cond: Cond | undefined): void {
  const has = findCondition(status.conditions, type) !== undefined;
  if (cond === undefined) {
    if (has) status.conditions = withoutCondition(status.conditions, type);
  } else if (!has) {
    status.conditions = [...(status.conditions ?? []), cond];
  }
}

function conditions(status: Status, domain: DomainJson | undefined, now: string): void {
  const agent = domain?.Spec.Devices.Channels?.some(
    (c) => c.Target.Name === AGENT_CHANNEL && c.Target.State === 'connected',
  );
  setCondition(
    status,
    'AgentConnected',
    agent === true ? { type: 'AgentConnected', status: 'True', lastProbeTime: now } : undefined,
  );
  const paused = domain?.Status.Status === 'Paused' ? PAUSED[domain.Status.Reason] : undefined;
  setCondition(
    status,
    'Paused',
    paused === undefined
      ? undefined
      : { type: 'Paused', status: 'True', lastProbeTime: now, lastTransitionTime: now, ...paused },
  );
}

/**
 * LiveMigratable is replaced (and goes last) whenever any of it changes, StorageLiveMigratable only when its
 * status or reason does, as KubeVirt's condition managers do; migrationMethod says whether disks are copied.
 */
function liveMigration(status: Status, vmi: VirtualMachineInstance, facts: MigratableFacts): void {
  const m = migratability(vmi, facts);
  const cur = findCondition(status.conditions, m.condition.type);
  if (cur === undefined || !deepEqual(cur, m.condition))
    status.conditions = [...withoutCondition(status.conditions, m.condition.type), m.condition];
  status.conditions = upsertCondition(status.conditions, m.storageCondition);
  status.migrationMethod = m.blockMigration ? 'BlockMigration' : 'LiveMigration';
}

/** The VMI with the handler's status fields brought up to date (a copy; its input is not touched). */
export function computeHandlerStatus(i: HandlerStatusInput): VirtualMachineInstance {
  const out = structuredClone(i.vmi);
  if (isFinal(i.vmi)) return out;
  const now = rfc3339(i.nowMs);
  const status = (out.status ??= {});
  if (i.domain !== undefined) guestFacts(status, i.domain);
  const interfaces = interfacesStatus(i.vmi, i.domain, i.podIps ?? new Map());
  if (interfaces !== undefined) status.interfaces = interfaces;
  volumes(status, i);
  withDevicePhases(status, i.domain);
  attachFailed(status, parseAttachFailure(i.failure?.message));
  const phase = domainPhase(i.vmi, i.domain, i.launcher);
  if (phase !== undefined) status.phase = phase;
  liveMigration(status, out, i.migratable);
  conditions(status, i.domain, now);
  cpuHotplug(status, i, out);
  withMemoryHotplug(status, i.memoryHotplug, out);
  withSyncFailure(out, i.failure, now);
  withPhaseTransition(i.vmi, out, now);
  return out;
}
