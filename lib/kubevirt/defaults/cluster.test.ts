import { describe, expect, it } from '@jest/globals';
import type { KubeVirtConfiguration } from '../v1/kubevirt.ts';
import {
  clusterDefaultsFrom,
  DEFAULT_CLUSTER_DEFAULTS,
  machineTypeFor,
  type ClusterDefaults,
} from './cluster.ts';

describe('clusterDefaultsFrom', () => {
  it('gives KubeVirt defaults without a configuration', () => {
    expect(clusterDefaultsFrom(undefined)).toEqual(DEFAULT_CLUSTER_DEFAULTS);
    expect(clusterDefaultsFrom(undefined, 'arm64').defaultArchitecture).toBe('arm64');
  });

  it.each<[string, KubeVirtConfiguration, Partial<ClusterDefaults>]>([
    ['machine type', { machineType: 'pc-q35-7.2' }, { machineType: 'pc-q35-7.2' }],
    [
      'per-architecture machine type',
      { architectureConfiguration: { arm64: { machineType: 'virt-8.2' } } },
      { machineTypes: { amd64: 'q35', arm64: 'virt-8.2', ppc64le: 'pseries', s390x: 's390-ccw-virtio' } },
    ],
    ['CPU model', { cpuModel: 'Skylake' }, { cpuModel: 'Skylake' }],
    ['CPU request', { cpuRequest: '200m' }, { cpuRequest: '200m' }],
    [
      'eviction strategy (Deckhouse: LiveMigrate)',
      { evictionStrategy: 'LiveMigrate' },
      { evictionStrategy: 'LiveMigrate' },
    ],
    ['rollout strategy', { vmRolloutStrategy: 'Stage' }, { vmRolloutStrategy: 'Stage' }],
    [
      'null rollout strategy means LiveUpdate',
      { vmRolloutStrategy: null },
      { vmRolloutStrategy: 'LiveUpdate' },
    ],
    [
      'network',
      { network: { defaultNetworkInterface: 'masquerade', permitBridgeInterfaceOnPodNetwork: false } },
      { defaultNetworkInterface: 'masquerade', permitBridgeInterfaceOnPodNetwork: false },
    ],
    [
      'live update limits',
      { liveUpdateConfiguration: { maxCpuSockets: 8, maxGuest: '64Gi', maxHotplugRatio: 2 } },
      { maxCpuSockets: 8, maxGuest: '64Gi', maxHotplugRatio: 2 },
    ],
    [
      'Root feature gate',
      { developerConfiguration: { featureGates: ['HotplugVolumes', 'Root'] } },
      { root: true },
    ],
    ['empty strings change nothing', { machineType: '', cpuModel: '' }, {}],
  ])('%s', (_name, config, expected) => {
    expect(clusterDefaultsFrom(config)).toEqual({ ...DEFAULT_CLUSTER_DEFAULTS, ...expected });
  });
});

describe('machineTypeFor', () => {
  it.each([
    ['amd64', 'q35'],
    ['arm64', 'virt'],
    ['ppc64le', 'pseries'],
    ['s390x', 's390-ccw-virtio'],
    ['', 'q35'],
  ])('%p → %p', (arch, type) => {
    expect(machineTypeFor(DEFAULT_CLUSTER_DEFAULTS, arch)).toBe(type);
  });
});
