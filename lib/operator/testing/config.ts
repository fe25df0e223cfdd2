/**
 * InstallConfig fixtures for the generators' golden and table tests: Deckhouse's install (namespace
 * d8-virtualization, the handler on the host network with 4100/4101) unless a field is given.
 */
import type { InstallConfig } from '../config/install-config.ts';

const NO_PLACEMENT = { nodeSelector: {}, tolerations: [] } as const;

export function installConfig(overrides: Partial<InstallConfig> = {}): InstallConfig {
  return {
    namespace: 'd8-virtualization',
    mode: 'deckhouse',
    image: 'registry.example/kubevirt-ts:v0.1.0',
    launcherImage: 'registry.example/kubevirt-ts:v0.1.0',
    imagePullPolicy: 'IfNotPresent',
    imagePullSecrets: [],
    version: 'v0.1.0',
    featureGates: [],
    useEmulation: false,
    verbosity: { 'virt-api': 2, 'virt-controller': 2, 'virt-handler': 2 },
    infraReplicas: 2,
    infraPlacement: NO_PLACEMENT,
    workloadsPlacement: NO_PLACEMENT,
    handler: { hostNetwork: true, healthPort: 4100, consoleServerPort: 4101 },
    certificateRotation: {
      caValiditySeconds: 7 * 24 * 3600,
      caRenewBeforeSeconds: 2 * 24 * 3600,
      certValiditySeconds: 24 * 3600,
      certRenewBeforeSeconds: 12 * 3600,
    },
    flags: { 'virt-api': {}, 'virt-controller': {}, 'virt-handler': {} },
    patches: [],
    uninstallStrategy: 'BlockUninstallIfWorkloadsExist',
    ...overrides,
  };
}
