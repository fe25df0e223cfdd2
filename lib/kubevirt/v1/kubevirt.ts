/**
 * The KubeVirt custom resource: install settings and the cluster-wide configuration the roles read. Only the
 * configuration fields this project acts on are typed; the rest of KubeVirt's large configuration is kept as
 * sent.
 */
import { s, type Infer } from '../schema/dsl.ts';
import { condition, imagePullPolicy, opaque } from './common.ts';
import { evictionStrategy } from './vmi-spec.ts';

const kubevirtPhase = s.enum(['Deploying', 'Deployed', 'Deleting', 'Deleted']);

export type KubeVirtConditionType = 'Synchronized' | 'Created' | 'Available' | 'Progressing' | 'Degraded';

const archConfig = s.object({
  machineType: s.string(),
  ovmfPath: s.string(),
  emulatedMachines: s.array(s.string(), { listType: 'atomic' }),
});

const kubevirtConfiguration = s.object(
  {
    developerConfiguration: s.object(
      {
        featureGates: s.array(s.string()),
        /** Run guests with TCG when KVM is not available. */
        useEmulation: s.bool(),
        nodeSelectors: s.map(s.string()),
        cpuAllocationRatio: s.int(),
        memoryOvercommit: s.int(),
      },
      { preserveUnknown: true },
    ),
    evictionStrategy,
    vmRolloutStrategy: s.enum(['Stage', 'LiveUpdate']).nullable(),
    /** The StorageClass of the VMs' backend-storage claims (persistent TPM and EFI state). */
    vmStateStorageClass: s.string(),
    machineType: s.string(),
    cpuModel: s.string(),
    cpuRequest: s.quantity(),
    emulatedMachines: s.array(s.string()),
    architectureConfiguration: s.object(
      { defaultArchitecture: s.string(), amd64: archConfig, arm64: archConfig, ppc64le: archConfig },
      { preserveUnknown: true },
    ),
    network: s.object(
      {
        /** bridge (default) or masquerade: the interface added when a VMI names none. */
        defaultNetworkInterface: s.string(),
        permitBridgeInterfaceOnPodNetwork: s.bool(),
        permitSlirpInterface: s.bool(),
        binding: s.map(opaque),
      },
      { preserveUnknown: true },
    ),
    smbios: s.object({
      manufacturer: s.string(),
      product: s.string(),
      family: s.string(),
      version: s.string(),
      sku: s.string(),
    }),
    migrations: opaque,
    liveUpdateConfiguration: s.object({
      maxHotplugRatio: s.int(),
      maxCpuSockets: s.int(),
      maxGuest: s.quantity(),
    }),
  },
  { preserveUnknown: true },
);
export type KubeVirtConfiguration = Infer<typeof kubevirtConfiguration>;

export const kubevirtSpec = s.object({
  imageTag: s.string(),
  imageRegistry: s.string(),
  imagePullPolicy,
  imagePullSecrets: s.array(s.object({ name: s.string() }), { listType: 'atomic' }),
  monitorNamespace: s.string(),
  monitorAccount: s.string(),
  serviceMonitorNamespace: s.string(),
  productName: s.string(),
  productVersion: s.string(),
  productComponent: s.string(),
  uninstallStrategy: s.enum(['RemoveWorkloads', 'BlockUninstallIfWorkloadsExist']),
  workloadUpdateStrategy: s.object({
    workloadUpdateMethods: s.array(s.string(), { listType: 'atomic' }),
    batchEvictionSize: s.int(),
    batchEvictionInterval: s.string(),
  }),
  customizeComponents: s.object({
    patches: s.array(
      s.object({
        resourceName: s.string().required(),
        resourceType: s.string().required(),
        patch: s.string().required(),
        type: s.string().required(),
      }),
      { listType: 'atomic' },
    ),
    flags: s.object({ api: s.map(s.string()), controller: s.map(s.string()), handler: s.map(s.string()) }),
  }),
  configuration: kubevirtConfiguration,
  certificateRotateStrategy: opaque,
  infra: opaque,
  workloads: opaque,
});
export type KubeVirtSpec = Infer<typeof kubevirtSpec>;

export const kubevirtStatus = s.object({
  phase: kubevirtPhase,
  conditions: s.array(condition<KubeVirtConditionType>()),
  operatorVersion: s.string(),
  targetKubeVirtRegistry: s.string(),
  targetKubeVirtVersion: s.string(),
  targetDeploymentConfig: s.string(),
  targetDeploymentID: s.string(),
  observedKubeVirtRegistry: s.string(),
  observedKubeVirtVersion: s.string(),
  observedDeploymentConfig: s.string(),
  observedDeploymentID: s.string(),
  outdatedVirtualMachineInstanceWorkloads: s.int(),
  observedGeneration: s.int('int64'),
  defaultArchitecture: s.string(),
  generations: s.array(
    s.object({
      group: s.string().required(),
      resource: s.string().required(),
      namespace: s.string(),
      name: s.string().required(),
      lastGeneration: s.int('int64').required(),
      hash: s.string(),
    }),
    { listType: 'atomic' },
  ),
  synchronizationAddresses: s.array(s.string(), { listType: 'atomic' }),
});
export type KubeVirtStatus = Infer<typeof kubevirtStatus>;
