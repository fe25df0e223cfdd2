/** VirtualMachineInstance status: phase, conditions, node, guest facts, interfaces and volumes. */
import { s, type Infer, type Schema } from '../schema/dsl.ts';
import { condition, cpuTopology, type OpenString, machine, opaque, resourceList } from './common.ts';
import { migrationState } from './migration-state.ts';

export const vmiPhase = s.enum([
  'Pending',
  'Scheduling',
  'Scheduled',
  'Running',
  'Succeeded',
  'Failed',
  'WaitingForSync',
  'Unknown',
]);
export type VirtualMachineInstancePhase = Infer<typeof vmiPhase>;

export type VirtualMachineInstanceConditionType =
  | 'Provisioning'
  | 'Ready'
  | 'Synchronized'
  | 'Paused'
  | 'AgentConnected'
  | 'AccessCredentialsSynchronized'
  | 'AgentVersionNotSupported'
  | 'LiveMigratable'
  | 'HotVCPUChange'
  | 'HotMemoryChange'
  | 'VolumesChange'
  | 'DataVolumesReady'
  | 'StorageLiveMigratable'
  | 'MigrationRequired';

/**
 * One DRA device of status.deviceStatus: the claim and device allocated for a GPU or host device, and the
 * attributes the launcher attaches it by. usbAddress, hotplug and the phase fields are the Deckhouse fork's.
 */
const deviceStatusInfo = s.object({
  name: s.string().required(),
  deviceResourceClaimStatus: s.object({
    name: s.string(),
    resourceClaimName: s.string(),
    attributes: s.object({
      pciAddress: s.string(),
      mDevUUID: s.string(),
      usbAddress: s.object({ bus: s.int('int64').required(), deviceNumber: s.int('int64').required() }),
    }),
    allowMultipleAllocations: s.bool(),
    bindsToNode: s.bool(),
  }),
  hotplug: s.object({ attachPodName: s.string(), attachPodUID: s.string() }),
  phase: s.string(),
  reason: s.string(),
  message: s.string(),
  address: s.string(),
});
export type DeviceStatusInfo = Infer<typeof deviceStatusInfo>;

const vmiCondition = condition<VirtualMachineInstanceConditionType>();
export type VirtualMachineInstanceCondition = Infer<typeof vmiCondition>;

export interface PhaseTransitionTimestamp<P extends string> {
  phase?: OpenString<P>;
  phaseTransitionTimestamp?: string | null;
}

/** When the object entered a phase; the schema keeps the phase a free string. */
export function phaseTransitionTimestamp<P extends string>(): Schema<PhaseTransitionTimestamp<P>> {
  return s.object({ phase: s.string(), phaseTransitionTimestamp: s.dateTime().nullable() });
}

const vmiNetworkInterface = s.object({
  name: s.string(),
  ipAddress: s.string(),
  ipAddresses: s.array(s.string()),
  mac: s.string(),
  interfaceName: s.string(),
  podInterfaceName: s.string(),
  /** domain, guest-agent, multus-status, or several joined with ", ". */
  infoSource: s.string(),
  queueCount: s.int('int32'),
  linkState: s.string(),
});
export type VirtualMachineInstanceNetworkInterface = Infer<typeof vmiNetworkInterface>;

const guestOsInfo = s.object({
  name: s.string(),
  kernelRelease: s.string(),
  version: s.string(),
  prettyName: s.string(),
  versionId: s.string(),
  kernelVersion: s.string(),
  machine: s.string(),
  id: s.string(),
});

const pvcInfo = s.object({
  claimName: s.string(),
  accessModes: s.array(s.string(), { listType: 'atomic' }),
  volumeMode: s.string(),
  capacity: resourceList,
  requests: resourceList,
  preallocated: s.bool(),
  filesystemOverhead: s.string(),
});

/** Pending, Bound, AttachedToNode, MountedToPod, Ready, Detaching, UnMountedFromPod, MemoryDump*. */
const volumeStatus = s.object({
  name: s.string().required(),
  target: s.string().required(),
  phase: s.string(),
  reason: s.string(),
  message: s.string(),
  persistentVolumeClaimInfo: pvcInfo,
  hotplugVolume: s.object({ attachPodName: s.string(), attachPodUID: s.string() }),
  size: s.int('int64'),
  memoryDumpVolume: s.object({
    claimName: s.string(),
    targetFileName: s.string(),
    startTimestamp: s.dateTime().nullable(),
    endTimestamp: s.dateTime().nullable(),
  }),
  containerDiskVolume: s.object({ checksum: s.uint32() }),
});
export type VolumeStatus = Infer<typeof volumeStatus>;

const checksum = s.object({ checksum: s.uint32() });

export const vmiStatus = s.object({
  phase: vmiPhase,
  phaseTransitionTimestamps: s.array(phaseTransitionTimestamp<VirtualMachineInstancePhase>(), {
    listType: 'atomic',
  }),
  conditions: s.array(vmiCondition),
  nodeName: s.string(),
  reason: s.string(),
  interfaces: s.array(vmiNetworkInterface),
  guestOSInfo: guestOsInfo,
  volumeStatus: s.array(volumeStatus, { listType: 'atomic' }),
  migrationState,
  migrationMethod: s.enum(['BlockMigration', 'LiveMigration']),
  migrationTransport: s.string(),
  qosClass: s.string(),
  launcherContainerImageVersion: s.string(),
  evacuationNodeName: s.string(),
  /** Pod UID → node name of the launcher pods that belong to this VMI. */
  activePods: s.map(s.string()),
  kernelBootStatus: s.object({ kernelInfo: checksum, initrdInfo: checksum }),
  fsFreezeStatus: s.string(),
  topologyHints: s.object({ tscFrequency: s.int('int64') }),
  virtualMachineRevisionName: s.string(),
  runtimeUser: s.int('int64'),
  VSOCKCID: s.uint32(),
  selinuxContext: s.string(),
  machine,
  currentCPUTopology: cpuTopology,
  memory: s.object({ guestAtBoot: s.quantity(), guestCurrent: s.quantity(), guestRequested: s.quantity() }),
  migratedVolumes: s.array(opaque, { listType: 'atomic' }),
  deviceStatus: s.object({
    gpuStatuses: s.array(deviceStatusInfo, { listType: 'atomic' }),
    hostDeviceStatuses: s.array(deviceStatusInfo, { listType: 'atomic' }),
  }),
});
export type VirtualMachineInstanceStatus = Infer<typeof vmiStatus>;
