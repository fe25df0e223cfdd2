/**
 * kubevirt.io/v1 for the roles: object types and schemas, GVR constants, enums, labels, pure defaulting, disk
 * target naming and quantities. The stored internal names (internal-gvr.ts) are imported from their own file:
 * they pull in the rename rules, which the launcher does not need. The CRDs are the operator's
 * (lib/operator/generate/crds, lib/operator/apply/install-crds.ts).
 */
export { type Quantity } from './schema/dsl.ts';
export { asMigration, asVirtualMachine, asVirtualMachineInstance, vmiInputSchema } from './object-input.ts';

export type * from './v1/objects.ts';
export type { ResourceList } from './v1/common.ts';
export type { Disk, DiskBus } from './v1/disk.ts';
export type { Devices, Gpu, HostDevice, Input } from './v1/devices.ts';
export type { Cpu, Firmware, Memory } from './v1/domain.ts';
export type { Clock, Features } from './v1/features.ts';
export type { Interface, Network } from './v1/network.ts';
export type { CloudInitSource, HotplugVolumeSource, Volume } from './v1/volume.ts';
export type { PodResourceClaim, VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';
export type {
  DeviceStatusInfo,
  VirtualMachineInstanceCondition,
  VirtualMachineInstanceNetworkInterface,
  VirtualMachineInstancePhase,
  VolumeStatus,
} from './v1/vmi-status.ts';
export type {
  PrintableStatus,
  RunStrategy,
  VirtualMachineCondition,
  VirtualMachineResourceClaimRequest,
  VirtualMachineStartFailure,
  VirtualMachineStateChangeRequest,
  VirtualMachineVolumeRequest,
} from './v1/vm.ts';
export type { VirtualMachineStatus } from './v1/vm-status.ts';
export type {
  AddResourceClaimOptions,
  AddVolumeOptions,
  EvacuateCancelOptions,
  MigrateOptions,
  PauseOptions,
  RemoveResourceClaimOptions,
  RemoveVolumeOptions,
  RestartOptions,
  StartOptions,
  StopOptions,
} from './v1/subresources.ts';

export * from './gvr.ts';
export * from './enums.ts';
export * from './labels.ts';
export * from './quantity.ts';
export * from './disk-targets.ts';
export * from './networks.ts';
export * from './hotplug.ts';
export * from './cpu-hotplug.ts';
export * from './dra-devices.ts';
export * from './memory-hotplug.ts';
export * from './volume-requests.ts';
export * from './resource-claim-requests.ts';
export * from './access-credentials.ts';
export * from './persistent-state.ts';
export * from './defaults/cluster.ts';
export { defaultDiskBus } from './defaults/arch.ts';
export { MAX_VCPUS } from './defaults/hotplug.ts';
export { InvalidFieldError } from './field-error.ts';
export { terminationGracePeriodSeconds, withVmiDefaults } from './defaults/vmi.ts';
export { runStrategyOf } from './defaults/vm.ts';
