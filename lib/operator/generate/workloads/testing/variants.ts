/**
 * The install configurations the workload generators' tests render: Deckhouse's defaults and one variant per
 * input that changes what a generator renders.
 */
import type { InstallConfig, Placement } from '../../../config/install-config.ts';
import { installConfig } from '../../../testing/config.ts';

export const NODE_AFFINITY = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'kvm', operator: 'Exists' }] }],
  },
};

export const PLACEMENT: Placement = {
  nodeSelector: { 'node-role.deckhouse.io/system': '' },
  tolerations: [{ key: 'dedicated.deckhouse.io', operator: 'Exists' }],
  affinity: {
    nodeAffinity: NODE_AFFINITY,
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 50, podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone' } },
      ],
    },
  },
};

const OVERRIDES = {
  default: {},
  kubevirt: {
    mode: 'kubevirt',
    namespace: 'kubevirt',
    handler: { hostNetwork: false, healthPort: 8443, consoleServerPort: 8186 },
  },
  emulation: { useEmulation: true },
  'persistent-reservation': { featureGates: ['HotplugVolumes', 'PersistentReservation'] },
  'launcher-image': { launcherImage: 'registry.example/kubevirt-ts-launcher:v0.1.0' },
  'pod-network': { handler: { hostNetwork: false, healthPort: 4100, consoleServerPort: 4101 } },
  placement: {
    infraPlacement: PLACEMENT,
    workloadsPlacement: PLACEMENT,
    imagePullSecrets: ['registry'],
    imagePullPolicy: 'Always',
    verbosity: { 'virt-api': 4, 'virt-controller': 5, 'virt-handler': 6 },
  },
} satisfies Record<string, Partial<InstallConfig>>;

export type Variant = keyof typeof OVERRIDES;

export const VARIANTS = Object.keys(OVERRIDES) as Variant[];

export function variant(name: Variant): InstallConfig {
  return installConfig(OVERRIDES[name]);
}
