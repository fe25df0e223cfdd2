/**
 * kubevirt.io/v1 for the roles: object types and schemas, GVR constants, enums, labels, pure defaulting, disk
 * target naming and quantities. The stored internal names (internal-gvr.ts) are imported from their own file:
 * they pull in the rename rules, which the launcher does not need. The CRDs are the operator's
 * (lib/operator/generate/crds, lib/operator/apply/install-crds.ts).
 */
export {
  s,
  Schema,
  EnumSchema,
  type Infer,
  type InferShape,
  type JsonObject,
  type Quantity,
} from './schema/dsl.ts';
export { toOpenApi, type JsonSchemaProps } from './schema/openapi.ts';
export { validateAgainstSchema } from './schema/validate.ts';
export { pruneNulls } from './schema/prune-nulls.ts';
export {
  asMigration,
  asVirtualMachine,
  asVirtualMachineInstance,
  InvalidObjectError,
  vmiInputSchema,
} from './object-input.ts';

export type * from './v1/objects.ts';
export type {
  Condition,
  ConditionStatus,
  CpuTopology,
  ImagePullPolicy,
  Machine,
  OpenString,
  ResourceList,
  Toleration,
} from './v1/common.ts';
export type {
  CdromTarget,
  Disk,
  DiskBus,
  DiskErrorPolicy,
  DiskTarget,
  DriverCache,
  DriverIo,
  LunTarget,
  TrayState,
} from './v1/disk.ts';
export type { Devices, Gpu, HostDevice, Input, Watchdog } from './v1/devices.ts';
export type { Cpu, DomainSpec, Firmware, KernelBoot, Memory, ResourceRequirements } from './v1/domain.ts';
export type { Clock, Features } from './v1/features.ts';
export type { Interface, Network } from './v1/network.ts';
export type {
  CloudInitSource,
  ContainerDiskSource,
  DataVolumeSource,
  HostDiskSource,
  HotplugVolumeSource,
  PersistentVolumeClaimSource,
  Volume,
} from './v1/volume.ts';
export type { EvictionStrategy, PodResourceClaim, VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';
export type {
  GuestOsInfo,
  PhaseTransitionTimestamp,
  VirtualMachineInstanceCondition,
  VirtualMachineInstanceConditionType,
  VirtualMachineInstanceNetworkInterface,
  VirtualMachineInstancePhase,
  VirtualMachineInstanceStatus,
  VolumeStatus,
} from './v1/vmi-status.ts';
export type { MigrationState } from './v1/migration-state.ts';
export type {
  DataVolumeTemplateSpec,
  PrintableStatus,
  RunStrategy,
  StateChangeRequestAction,
  VirtualMachineCondition,
  VirtualMachineConditionType,
  VirtualMachineInstanceTemplateSpec,
  VirtualMachineResourceClaimRequest,
  VirtualMachineSpec,
  VirtualMachineStartFailure,
  VirtualMachineStateChangeRequest,
  VirtualMachineVolumeRequest,
} from './v1/vm.ts';
export type { VirtualMachineMemoryDumpRequest, VirtualMachineStatus } from './v1/vm-status.ts';
export type {
  AddResourceClaimOptions,
  AddVolumeOptions,
  FreezeUnfreezeTimeout,
  MigrateOptions,
  PauseOptions,
  RemoveResourceClaimOptions,
  RemoveVolumeOptions,
  RestartOptions,
  StartOptions,
  StopOptions,
  UnpauseOptions,
} from './v1/subresources.ts';
export type {
  MigrationConditionType,
  MigrationPhase,
  VirtualMachineInstanceMigrationSpec,
  VirtualMachineInstanceMigrationStatus,
} from './v1/migration.ts';
export type {
  KubeVirtConditionType,
  KubeVirtConfiguration,
  KubeVirtPhase,
  KubeVirtSpec,
  KubeVirtStatus,
} from './v1/kubevirt.ts';
export {
  addResourceClaimOptions,
  addVolumeOptions,
  freezeUnfreezeTimeout,
  removeResourceClaimOptions,
  removeVolumeOptions,
  restartOptions,
  startOptions,
  stopOptions,
} from './v1/subresources.ts';
export {
  kubeVirtSchema,
  migrationSchema,
  virtualMachineInstanceSchema,
  virtualMachineSchema,
} from './v1/objects.ts';

export * from './gvr.ts';
export * from './enums.ts';
export * from './labels.ts';
export * from './quantity.ts';
export * from './disk-targets.ts';
export * from './hotplug.ts';
export * from './volume-requests.ts';
export * from './resource-claim-requests.ts';
export * from './access-credentials.ts';
export * from './defaults/cluster.ts';
export { defaultDiskBus, HOST_PASSTHROUGH } from './defaults/arch.ts';
export { MAX_VCPUS, memoryHotplugBlocker } from './defaults/hotplug.ts';
export {
  childPath,
  fieldMessage,
  indexPath,
  InvalidFieldError,
  keyPath,
  type FieldError,
} from './field-error.ts';
export {
  terminationGracePeriodSeconds,
  withVmiCreateDefaults,
  withVmiDefaults,
  type VmiCreateOptions,
  type VmiDefaultsOptions,
} from './defaults/vmi.ts';
export {
  CLUSTER_INSTANCETYPE_KIND,
  CLUSTER_PREFERENCE_KIND,
  runStrategyOf,
  withVmDefaults,
  type VmDefaultsOptions,
} from './defaults/vm.ts';
