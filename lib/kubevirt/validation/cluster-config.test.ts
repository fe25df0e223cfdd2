import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS } from '../defaults/cluster.ts';
import type { KubeVirt } from '../v1/objects.ts';
import {
  configuringKubeVirt,
  DEFAULT_VALIDATION_CONTEXT,
  readClusterConfig,
  type ClusterConfigReading,
} from './cluster-config.ts';
import { DEFAULT_EMULATED_MACHINES, type ValidationContext } from './context.ts';
import { config, kubevirtCr, withConfig, type KubeVirtChange } from './testing/kubevirts.ts';

const developer =
  (key: string, value: unknown): KubeVirtChange =>
  (kv) => {
    const dev = (config(kv)['developerConfiguration'] ??= {}) as Record<string, unknown>;
    dev[key] = value;
  };
const context = (r: ClusterConfigReading): ValidationContext => {
  if (!r.ok) throw new Error(`not read: ${r.problem}`);
  return r.context;
};

describe('readClusterConfig', () => {
  it('without a CR: KubeVirt defaults, no gate listed', () => {
    expect(readClusterConfig(undefined)).toEqual({ ok: true, context: DEFAULT_VALIDATION_CONTEXT });
    expect([...DEFAULT_VALIDATION_CONTEXT.featureGates]).toEqual([]);
  });

  it('reads the gates and the defaulting settings of spec.configuration', () => {
    const ctx = context(
      readClusterConfig(
        kubevirtCr(developer('featureGates', ['NodeRestriction', 'Root']), withConfig('cpuModel', 'Haswell')),
      ),
    );
    expect([...ctx.featureGates]).toEqual(['NodeRestriction', 'Root']);
    expect(ctx.cluster).toMatchObject({ root: true, cpuModel: 'Haswell', evictionStrategy: 'LiveMigrate' });
  });

  it.each<[string, KubeVirtChange, string]>([
    [
      'an unknown image pull policy',
      withConfig('imagePullPolicy', 'Sometimes'),
      'invalid dev.imagePullPolicy in config: Sometimes',
    ],
    ['memoryOvercommit 0', developer('memoryOvercommit', 0), 'invalid memoryOvercommit in ConfigMap: 0'],
    [
      'cpuAllocationRatio -1',
      developer('cpuAllocationRatio', -1),
      'invalid cpu allocation ratio in ConfigMap: -1',
    ],
    [
      'lessPVCSpaceToleration 101',
      developer('lessPVCSpaceToleration', 101),
      'invalid lessPVCSpaceToleration in ConfigMap: 101',
    ],
    [
      'lessPVCSpaceToleration not a number',
      developer('lessPVCSpaceToleration', 'ten'),
      'invalid lessPVCSpaceToleration in ConfigMap: ten',
    ],
    [
      'an unknown default interface',
      withConfig('network', { defaultNetworkInterface: 'tap' }),
      'invalid default-network-interface in config: tap',
    ],
  ])('a configuration KubeVirt refuses is not read: %s', (_name, change, problem) => {
    expect(readClusterConfig(kubevirtCr(change))).toEqual({ ok: false, problem });
  });

  it.each<[string, KubeVirtChange, Readonly<Record<string, readonly string[]>>]>([
    ['none set: the defaults', withConfig('emulatedMachines', undefined), DEFAULT_EMULATED_MACHINES],
    [
      'per architecture',
      (kv) => {
        withConfig('emulatedMachines', undefined)(kv);
        withConfig('architectureConfiguration', { amd64: { emulatedMachines: ['pc-i440fx*'] } })(kv);
      },
      { ...DEFAULT_EMULATED_MACHINES, amd64: ['pc-i440fx*'] },
    ],
    [
      'the deprecated top-level list wins for every architecture',
      (kv) => {
        withConfig('emulatedMachines', ['pc*'])(kv);
        withConfig('architectureConfiguration', { amd64: { emulatedMachines: ['pc-i440fx*'] } })(kv);
      },
      { amd64: ['pc*'], arm64: ['pc*'], ppc64le: ['pc*'], s390x: ['pc*'] },
    ],
  ])('emulated machines: %s', (_name, change, expected) => {
    expect(context(readClusterConfig(kubevirtCr(change))).emulatedMachines).toEqual(expected);
  });

  it.each<[string, KubeVirtChange, string]>([
    ['from status', (kv) => (kv.status = { defaultArchitecture: 'arm64' }), 'arm64'],
    [
      "the spec's without an operator's status",
      withConfig('architectureConfiguration', { defaultArchitecture: 'ppc64le' }),
      'ppc64le',
    ],
    ['amd64 when neither says', () => undefined, DEFAULT_CLUSTER_DEFAULTS.defaultArchitecture],
  ])('default architecture: %s', (_name, change, arch) => {
    expect(context(readClusterConfig(kubevirtCr(change))).cluster?.defaultArchitecture).toBe(arch);
  });
});

describe('configuringKubeVirt', () => {
  const named = (name: string, deleting = false): KubeVirt =>
    kubevirtCr((kv) => {
      kv.metadata.name = name;
      if (deleting) kv.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    });

  it.each<[string, KubeVirt[], string | undefined]>([
    ['none', [], undefined],
    ['the only one', [named('config')], 'config'],
    ['not one being deleted', [named('config', true)], undefined],
    ['the first by name', [named('b'), named('a')], 'a'],
  ])('%s', (_name, list, expected) => {
    expect(configuringKubeVirt(list)?.metadata.name).toBe(expected);
  });
});
