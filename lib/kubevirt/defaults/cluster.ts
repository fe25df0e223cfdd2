/**
 * The cluster-wide settings KubeVirt's defaulting reads (its ClusterConfig), with KubeVirt's defaults, and how
 * they come from a KubeVirt CR's spec.configuration.
 */
import type { Quantity } from '../schema/dsl.ts';
import type { KubeVirtConfiguration } from '../v1/kubevirt.ts';
import type { EvictionStrategy } from '../v1/vmi-spec.ts';

export interface ClusterDefaults {
  /** Architecture of VMIs that name none (KubeVirt: the status of the KubeVirt CR, else the host's). */
  readonly defaultArchitecture: string;
  /** Cluster-wide machine type; wins over machineTypes when set. */
  readonly machineType?: string;
  /** Machine type per architecture. */
  readonly machineTypes: Readonly<Record<string, string>>;
  /** CPU model of VMIs that name none; host-model when unset. */
  readonly cpuModel?: string;
  /** CPU request added to VMIs without one, when it differs from KubeVirt's 100m. */
  readonly cpuRequest?: Quantity;
  /** bridge or masquerade: the interface added when a VMI names no interface and no network. */
  readonly defaultNetworkInterface: string;
  readonly permitBridgeInterfaceOnPodNetwork: boolean;
  readonly evictionStrategy?: EvictionStrategy;
  /** LiveUpdate enables CPU and memory hotplug headroom (maxSockets, maxGuest). */
  readonly vmRolloutStrategy: 'Stage' | 'LiveUpdate';
  readonly maxCpuSockets?: number;
  readonly maxGuest?: Quantity;
  readonly maxHotplugRatio: number;
  /** Launcher runs as root (KubeVirt's Root feature gate); otherwise status.runtimeUser is 107. */
  readonly root: boolean;
}

const DEFAULT_MACHINE_TYPES: Readonly<Record<string, string>> = {
  amd64: 'q35',
  arm64: 'virt',
  ppc64le: 'pseries',
  s390x: 's390-ccw-virtio',
};

export const DEFAULT_CPU_MODEL = 'host-model';
export const DEFAULT_CPU_REQUEST = '100m';
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;
export const NON_ROOT_UID = 107;

export const DEFAULT_CLUSTER_DEFAULTS: ClusterDefaults = {
  defaultArchitecture: 'amd64',
  machineTypes: DEFAULT_MACHINE_TYPES,
  defaultNetworkInterface: 'bridge',
  permitBridgeInterfaceOnPodNetwork: true,
  vmRolloutStrategy: 'LiveUpdate',
  maxHotplugRatio: 4,
  root: false,
};

function archMachineTypes(config: KubeVirtConfiguration): Record<string, string> {
  const types: Record<string, string> = { ...DEFAULT_MACHINE_TYPES };
  const arch = config.architectureConfiguration;
  for (const [name, c] of [
    ['amd64', arch?.amd64],
    ['arm64', arch?.arm64],
    ['ppc64le', arch?.ppc64le],
  ] as const) {
    if (nonEmpty(c?.machineType)) types[name] = c.machineType;
  }
  return types;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function nonEmpty(v: string | undefined): v is string {
  return v !== undefined && v !== '';
}

function overlayNetwork(out: Mutable<ClusterDefaults>, net: KubeVirtConfiguration['network']): void {
  if (nonEmpty(net?.defaultNetworkInterface)) out.defaultNetworkInterface = net.defaultNetworkInterface;
  if (net?.permitBridgeInterfaceOnPodNetwork !== undefined) {
    out.permitBridgeInterfaceOnPodNetwork = net.permitBridgeInterfaceOnPodNetwork;
  }
}

function overlayLiveUpdate(
  out: Mutable<ClusterDefaults>,
  live: KubeVirtConfiguration['liveUpdateConfiguration'],
): void {
  if (live?.maxHotplugRatio !== undefined) out.maxHotplugRatio = live.maxHotplugRatio;
  if (live?.maxCpuSockets !== undefined) out.maxCpuSockets = live.maxCpuSockets;
  if (live?.maxGuest !== undefined) out.maxGuest = live.maxGuest;
}

/** KubeVirt's defaults overlaid with what a KubeVirt CR configures (field by field, as KubeVirt merges). */
export function clusterDefaultsFrom(
  config: KubeVirtConfiguration | undefined,
  defaultArchitecture = DEFAULT_CLUSTER_DEFAULTS.defaultArchitecture,
): ClusterDefaults {
  const out: Mutable<ClusterDefaults> = { ...DEFAULT_CLUSTER_DEFAULTS, defaultArchitecture };
  if (config === undefined) return out;
  out.machineTypes = archMachineTypes(config);
  if (nonEmpty(config.machineType)) out.machineType = config.machineType;
  if (nonEmpty(config.cpuModel)) out.cpuModel = config.cpuModel;
  if (config.cpuRequest !== undefined) out.cpuRequest = config.cpuRequest;
  if (config.evictionStrategy !== undefined) out.evictionStrategy = config.evictionStrategy;
  // null (unset) keeps LiveUpdate, KubeVirt's default.
  out.vmRolloutStrategy = config.vmRolloutStrategy ?? out.vmRolloutStrategy;
  overlayNetwork(out, config.network);
  overlayLiveUpdate(out, config.liveUpdateConfiguration);
  out.root = config.developerConfiguration?.featureGates?.includes('Root') ?? false;
  return out;
}

/** The machine type KubeVirt gives a VMI of this architecture. */
export function machineTypeFor(cfg: ClusterDefaults, arch: string): string {
  if (cfg.machineType !== undefined) return cfg.machineType;
  // KubeVirt falls back to the amd64 type for any architecture it has no entry for.
  return cfg.machineTypes[arch] ?? cfg.machineTypes['amd64'] ?? 'q35';
}
