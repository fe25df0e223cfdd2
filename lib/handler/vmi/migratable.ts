/**
 * Whether a VMI can move by live migration, and how its disks would go (kubevirt pkg/virt-handler/vm.go
 * calculateLiveMigrationCondition, calculateLiveStorageMigrationCondition and checkVolumesForMigration, with
 * pkg/network/vmispec VerifyVMIMigratable, tag v1.6.2; the Deckhouse fork's v1.6.2-virtualization does the
 * same here). Pure: the LiveMigratable condition (the first check that fails, the disks last), the
 * StorageLiveMigratable condition (every check but the disks and Secure Execution, together) and whether a
 * migration must copy local disks (status.migrationMethod BlockMigration).
 *
 * The host CPU model: KubeVirt refuses host-model when the node labeller found no host model on the node. The
 * handler's VMI controller is not told the node's model, so it passes none and host-model is not refused; a
 * caller that knows says so with `hostCpuModel` ('' for none).
 */
import type { Interface, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { ANNOTATIONS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceCondition } from '../../kubevirt/v1/vmi-status.ts';
import type { BindingPlugin } from '../../network/pod-network-interfaces.ts';

export interface MigratableFacts {
  /** `network.binding` of the KubeVirt resource: a plugin with `migration` moves its interfaces. */
  readonly networkBindings: Readonly<Record<string, BindingPlugin>>;
  /** The node's host CPU model ('' when it has none); undefined when not known, and then not held against it. */
  readonly hostCpuModel?: string;
}

export interface Migratability {
  readonly condition: VirtualMachineInstanceCondition;
  readonly storageCondition: VirtualMachineInstanceCondition;
  /** Some volume lives on this node only and would be copied (BlockMigration). */
  readonly blockMigration: boolean;
}

type Vmi = VirtualMachineInstance;
type Volume = NonNullable<Vmi['spec']['volumes']>[number];

/** KubeVirt's reasons (api core v1 types.go); CPUModeLiveMigratable is spelled as KubeVirt spells it. */
const REASONS = {
  disks: 'DisksNotLiveMigratable',
  interface: 'InterfaceNotLiveMigratable',
  cpuMode: 'CPUModeLiveMigratable',
  hostDevice: 'HostDeviceNotLiveMigratable',
  sev: 'SEVNotLiveMigratable',
  secureExecution: 'SecureExecutionNotLiveMigratable',
  persistentReservation: 'PersistentReservationNotLiveMigratable',
  tsc: 'NoTSCFrequencyNotLiveMigratable',
  hypervPassthrough: 'HypervPassthroughNotLiveMigratable',
  notMigratable: 'NotMigratable',
} as const;

// The messages are KubeVirt's, word for word (its own misspelling included): clients match on them.
const INTERFACE_MESSAGE =
  'cannot migrate VMI which does not use masquerade, bridge with ' +
  `${ANNOTATIONS.ALLOW_POD_BRIDGE_NETWORK_LIVE_MIGRATION} VM annotation or a migratable plugin to connect to ` +
  'the pod network';
const TSC_MESSAGE =
  'HyperV Reenlightenment VMIs cannot migrate when TSC Frequency is not exposed on the cluster: guest timers ' +
  'might be inconsistent';
const sharedPvcMessage = (claim: string, known: boolean): string =>
  known
    ? `cannot migrate VMI: PVC ${claim} is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`
    : `cannot migrate VMI: Unable to determine if PVC ${claim} is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`;

/** The interface on the VMI's Pod network, if it has one (LookupPodNetwork, LookupInterfaceByName). */
function podInterface(vmi: Vmi): Interface | undefined {
  const podNetwork = (vmi.spec.networks ?? []).find((n) => n.pod !== undefined);
  if (podNetwork === undefined) return undefined;
  return (vmi.spec.domain.devices.interfaces ?? []).find((i) => i.name === podNetwork.name);
}

const pluginMigrates = (plugins: MigratableFacts['networkBindings'], name: string): boolean =>
  Object.hasOwn(plugins, name) && plugins[name]?.migration === true;

/** VerifyVMIMigratable: only the interface on the Pod network matters, and only when there is one. */
function interfaceRefusal(vmi: Vmi, plugins: MigratableFacts['networkBindings']): string | undefined {
  const iface = podInterface(vmi);
  if (iface === undefined || iface.masquerade !== undefined) return undefined;
  const annotations = vmi.metadata.annotations ?? {};
  if (
    iface.bridge !== undefined &&
    Object.hasOwn(annotations, ANNOTATIONS.ALLOW_POD_BRIDGE_NETWORK_LIVE_MIGRATION)
  )
    return undefined;
  if (iface.binding !== undefined && pluginMigrates(plugins, iface.binding.name)) return undefined;
  return INTERFACE_MESSAGE;
}

function hostModelRefusal(vmi: Vmi, hostCpuModel: string | undefined): string | undefined {
  if (vmi.spec.domain.cpu?.model !== 'host-model' || hostCpuModel !== '') return undefined;
  return `the node "${vmi.status?.nodeName ?? ''}" does not allow migration with host-model`;
}

/** Any host device or GPU, DRA ones too (v1.6.2's vmiContainsPCIHostDevice; no vGPU migration yet). */
function hostDeviceRefusal(vmi: Vmi): string | undefined {
  const d = vmi.spec.domain.devices;
  const count = (d.hostDevices?.length ?? 0) + (d.gpus?.length ?? 0);
  return count > 0 ? 'VMI uses a PCI host devices' : undefined;
}

const launchSecurity = (vmi: Vmi): Readonly<Record<string, unknown>> | undefined =>
  vmi.spec.domain.launchSecurity;

const sevRefusal = (vmi: Vmi): string | undefined =>
  launchSecurity(vmi)?.['sev'] !== undefined ? 'VMI uses SEV' : undefined;

const secureExecutionRefusal = (vmi: Vmi): string | undefined =>
  launchSecurity(vmi) !== undefined && vmi.spec.architecture === 's390x'
    ? 'VMI uses Secure Execution'
    : undefined;

const persistentReservationRefusal = (vmi: Vmi): string | undefined =>
  (vmi.spec.domain.devices.disks ?? []).some((d) => d.lun?.reservation === true)
    ? 'VMI uses SCSI persitent reservation'
    : undefined;

/**
 * GetTscFrequencyRequirement: Hyper-V reenlightenment needs the TSC frequency for a migration (an invtsc that is
 * required already needs it to boot, so it is no migration matter), unless the VMI's topology hints carry one;
 * a feature that is present is on unless it says `enabled: false` (the API defaults).
 */
function tscRefusal(vmi: Vmi): string | undefined {
  const invtsc = (vmi.spec.domain.cpu?.features ?? []).some(
    (f) => f.name === 'invtsc' && (f.policy === 'require' || f.policy === 'force'),
  );
  const reenlightenment = vmi.spec.domain.features?.hyperv?.reenlightenment;
  const hinted = (vmi.status?.topologyHints?.tscFrequency ?? 0) > 0;
  if (invtsc || reenlightenment === undefined || reenlightenment.enabled === false || hinted)
    return undefined;
  return TSC_MESSAGE;
}

function hypervPassthroughRefusal(vmi: Vmi): string | undefined {
  const p = vmi.spec.domain.features?.hypervPassthrough;
  return p !== undefined && p.enabled !== false ? 'VMI uses hyperv passthrough' : undefined;
}

/** A CD-ROM is read-only unless it says otherwise. */
const readOnlyDisks = (vmi: Vmi): Set<string> =>
  new Set(
    (vmi.spec.domain.devices.disks ?? [])
      .filter((d) => d.cdrom !== undefined && d.cdrom.readonly !== false)
      .map((d) => d.name),
  );

interface VolumeVerdict {
  /** The volume is copied by the migration. */
  readonly local?: true;
  /** The volume stops the migration. */
  readonly refusal?: string;
}

/** A claim's name and access modes, as the volume status reports them. */
interface ClaimInfo {
  readonly claimName: string;
  readonly accessModes: readonly string[];
}

interface VolumeFacts {
  readonly claims: ReadonlyMap<string, ClaimInfo>;
  readonly migrated: ReadonlySet<string>;
  readonly readOnly: ReadonlySet<string>;
  readonly filesystems: ReadonlySet<string>;
}

/** A claim is shared by ReadWriteMany, or copied because a volume migration put it in migratedVolumes. */
const isShared = (name: string, info: ClaimInfo, f: VolumeFacts): boolean =>
  info.accessModes.includes('ReadWriteMany') || f.migrated.has(name);

/** A PVC or DataVolume: shared, or refused (also when its volume status has no claim info). */
function claimVerdict(v: Volume, claim: string, f: VolumeFacts): VolumeVerdict {
  const info = f.claims.get(v.name);
  if (info === undefined) return { refusal: sharedPvcMessage(claim, false) };
  return isShared(v.name, info, f) ? {} : { refusal: sharedPvcMessage(claim, true) };
}

/** A host disk: shared or refused; a PVC turned into one (its volume status has claim info) counts as that PVC. */
function hostDiskVerdict(v: Volume, shared: boolean, f: VolumeFacts): VolumeVerdict {
  const info = f.claims.get(v.name);
  if (info !== undefined)
    return isShared(v.name, info, f) ? {} : { refusal: sharedPvcMessage(info.claimName, true) };
  return shared ? {} : { refusal: 'cannot migrate VMI with non-shared HostDisk' };
}

function volumeVerdict(v: Volume, f: VolumeFacts): VolumeVerdict {
  const claim = v.persistentVolumeClaim?.claimName ?? v.dataVolume?.name;
  if (claim !== undefined) return claimVerdict(v, claim, f);
  if (v.hostDisk !== undefined) return hostDiskVerdict(v, v.hostDisk.shared === true, f);
  // Anything else lives in the launcher Pod, unless virtiofs shares it or a read-only CD-ROM only reads it.
  if (f.filesystems.has(v.name) || f.readOnly.has(v.name)) return {};
  return { local: true };
}

function volumeFacts(vmi: Vmi): VolumeFacts {
  const claims = new Map<string, ClaimInfo>();
  for (const s of vmi.status?.volumeStatus ?? []) {
    const info = s.persistentVolumeClaimInfo;
    if (info !== undefined)
      claims.set(s.name, { claimName: info.claimName ?? '', accessModes: info.accessModes ?? [] });
  }
  const migrated = (vmi.status?.migratedVolumes ?? []).map((m) => m['volumeName']);
  return {
    claims,
    migrated: new Set(migrated.filter((n) => typeof n === 'string')),
    readOnly: readOnlyDisks(vmi),
    filesystems: new Set((vmi.spec.domain.devices.filesystems ?? []).map((f) => f.name)),
  };
}

/**
 * checkVolumesForMigration: whether disks are copied (a volume migration under way copies its volumes too),
 * and the first volume that stops a migration.
 */
function volumesForMigration(vmi: Vmi): { block: boolean; refusal?: string } {
  const facts = volumeFacts(vmi);
  let block = (vmi.status?.migratedVolumes ?? []).length > 0;
  for (const v of vmi.spec.volumes ?? []) {
    const verdict = volumeVerdict(v, facts);
    if (verdict.refusal !== undefined) return { block: true, refusal: verdict.refusal };
    if (verdict.local === true) block = true;
  }
  return { block };
}

interface Check {
  readonly reason: string;
  /** Counts against StorageLiveMigratable too. */
  readonly storage: boolean;
  readonly refusal: (vmi: Vmi, facts: MigratableFacts) => string | undefined;
}

/** KubeVirt's order; the disks come last, after these. */
const CHECKS: readonly Check[] = [
  { reason: REASONS.interface, storage: true, refusal: (v, f) => interfaceRefusal(v, f.networkBindings) },
  { reason: REASONS.cpuMode, storage: true, refusal: (v, f) => hostModelRefusal(v, f.hostCpuModel) },
  { reason: REASONS.hostDevice, storage: true, refusal: hostDeviceRefusal },
  { reason: REASONS.sev, storage: true, refusal: sevRefusal },
  { reason: REASONS.secureExecution, storage: false, refusal: secureExecutionRefusal },
  { reason: REASONS.persistentReservation, storage: true, refusal: persistentReservationRefusal },
  { reason: REASONS.tsc, storage: true, refusal: tscRefusal },
  { reason: REASONS.hypervPassthrough, storage: true, refusal: hypervPassthroughRefusal },
];

const refused = (
  type: 'LiveMigratable' | 'StorageLiveMigratable',
  reason: string,
  message: string,
): VirtualMachineInstanceCondition => ({ type, status: 'False', reason, message });

/** The VMI's LiveMigratable and StorageLiveMigratable conditions and whether its disks would be copied. */
export function migratability(vmi: Vmi, facts: MigratableFacts): Migratability {
  const volumes = volumesForMigration(vmi);
  const failing = CHECKS.flatMap((c) => {
    const message = c.refusal(vmi, facts);
    return message === undefined ? [] : [{ reason: c.reason, storage: c.storage, message }];
  });
  const first = failing[0];
  const condition =
    first !== undefined
      ? refused('LiveMigratable', first.reason, first.message)
      : volumes.refusal !== undefined
        ? refused('LiveMigratable', REASONS.disks, volumes.refusal)
        : { type: 'LiveMigratable', status: 'True' as const };
  const storage = failing.filter((f) => f.storage);
  const storageCondition =
    storage.length === 0
      ? { type: 'StorageLiveMigratable', status: 'True' as const }
      : refused(
          'StorageLiveMigratable',
          REASONS.notMigratable,
          storage.map((f) => `${f.reason}: ${f.message}`).join(', '),
        );
  return { condition, storageCondition, blockMigration: volumes.block };
}
