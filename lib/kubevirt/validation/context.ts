/**
 * What the validators know of the cluster: the enabled feature gates and the KubeVirt settings the admitters
 * read (KubeVirt's ClusterConfig). A gate KubeVirt v1.6.2 has graduated to GA counts as enabled whether listed
 * or not (virt-config isFeatureGateEnabled).
 */
import { DEFAULT_CLUSTER_DEFAULTS, type ClusterDefaults } from '../defaults/cluster.ts';

/** Feature gate names (pkg/virt-config/featuregate), wire-protocol constants. */
export const GATES = {
  HOTPLUG_VOLUMES: 'HotplugVolumes',
  DECLARATIVE_HOTPLUG_VOLUMES: 'DeclarativeHotplugVolumes',
  HOST_DEVICES: 'HostDevices',
  HOST_DISK: 'HostDisk',
  DOWNWARD_METRICS: 'DownwardMetrics',
  SIDECAR: 'Sidecar',
  IGNITION: 'ExperimentalIgnitionSupport',
  VSOCK: 'VSOCK',
  PERSISTENT_RESERVATION: 'PersistentReservation',
  MULTI_ARCHITECTURE: 'MultiArchitecture',
  VIRTIOFS_OLD: 'ExperimentalVirtiofsSupport',
  VIRTIOFS_CONFIG_VOLUMES: 'EnableVirtioFsConfigVolumes',
  VIRTIOFS_STORAGE_VOLUMES: 'EnableVirtioFsStorageVolumes',
  VIDEO_CONFIG: 'VideoConfig',
  PANIC_DEVICES: 'PanicDevices',
  GPUS_WITH_DRA: 'GPUsWithDRA',
  NUMA: 'NUMA',
  SEV: 'WorkloadEncryptionSEV',
  SECURE_EXECUTION: 'SecureExecution',
  DECENTRALIZED_LIVE_MIGRATION: 'DecentralizedLiveMigration',
  NODE_RESTRICTION: 'NodeRestriction',
  PASST: 'Passt',
  MACVTAP: 'Macvtap',
} as const;

/** The gates Deckhouse virtualization enables in its KubeVirt CR. */
export const DECKHOUSE_FEATURE_GATES: readonly string[] = [
  'HotplugVolumes',
  'Snapshot',
  'ExpandDisks',
  'CPUManager',
  'Sidecar',
  'VolumeSnapshotDataSource',
  'VMLiveUpdateFeatures',
  'VolumeMigration',
  'VolumesUpdateStrategy',
  'HostDevicesWithDRA',
  'HostDevices',
  'HotplugHostDevicesWithDRA',
  'GPUsWithDRA',
];

/** Gates that are GA in KubeVirt v1.6.2 (featuregate/inactive.go), on for every cluster. */
const GA_GATES: ReadonlySet<string> = new Set([
  'LiveMigration',
  'SRIOVLiveMigration',
  'NonRoot',
  'PSA',
  'CPUNodeDiscovery',
  'NUMA',
  'CommonInstancetypesDeploymentGate',
  'GPU',
  'HotplugNICs',
  'BochsDisplayForEFIGuests',
  'VMLiveUpdateFeatures',
  'NetworkBindingPlugins',
  'DynamicPodInterfaceNaming',
  'VolumesUpdateStrategy',
  'VolumeMigration',
  'DisableCustomSELinuxPolicy',
  'AutoResourceLimitsGate',
  'ClusterProfiler',
  'VMPersistentState',
  'InstancetypeReferencePolicy',
]);

/** KubeVirt's default emulated machine patterns per architecture (virt-config Default*EmulatedMachines). */
export const DEFAULT_EMULATED_MACHINES: Readonly<Record<string, readonly string[]>> = {
  amd64: ['q35*', 'pc-q35*'],
  arm64: ['virt*'],
  ppc64le: ['pseries*'],
  s390x: ['s390-ccw-virtio*'],
};

export interface ValidationContext {
  /** developerConfiguration.featureGates of the KubeVirt CR. */
  readonly featureGates: ReadonlySet<string>;
  /** Architecture default, eviction strategy, rollout strategy, bridge on the pod network (KubeVirt's defaults). */
  readonly cluster?: ClusterDefaults;
  /** Emulated machine patterns per architecture; KubeVirt's defaults when absent. */
  readonly emulatedMachines?: Readonly<Record<string, readonly string[]>>;
  /** The architecture virt-api runs on (Go's runtime.GOARCH); amd64 when absent. */
  readonly apiArchitecture?: string;
}

export function gateEnabled(ctx: ValidationContext, gate: string): boolean {
  return GA_GATES.has(gate) || ctx.featureGates.has(gate);
}

export function clusterOf(ctx: ValidationContext): ClusterDefaults {
  return ctx.cluster ?? DEFAULT_CLUSTER_DEFAULTS;
}
