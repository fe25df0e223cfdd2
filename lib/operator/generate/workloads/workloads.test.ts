import { describe, expect, it } from '@jest/globals';
import { goldens } from '../../../kernel/testing/golden.ts';
import type { InstallConfig } from '../../config/install-config.ts';
import { installConfig } from '../../testing/config.ts';
import { apiDeployment } from './api.ts';
import { controllerDeployment } from './controller.ts';
import { podDisruptionBudgets } from './disruption-budgets.ts';
import { handlerDaemonSet } from './handler.ts';
import { operatorDeployment } from './operator.ts';
import { services } from './services.ts';
import { NODE_AFFINITY, PLACEMENT, variant, type Variant } from './testing/variants.ts';

const golden = goldens(import.meta.url);

/** Which goldens each generator keeps: the variants that change what it renders. */
const CASES: [string, (cfg: InstallConfig) => unknown, Variant[]][] = [
  ['api', apiDeployment, ['default', 'kubevirt', 'placement']],
  ['controller', controllerDeployment, ['default', 'emulation', 'launcher-image', 'placement']],
  [
    'handler',
    handlerDaemonSet,
    [
      'default',
      'kubevirt',
      'emulation',
      'persistent-reservation',
      'launcher-image',
      'pod-network',
      'placement',
    ],
  ],
  ['services', services, ['default', 'kubevirt']],
  ['pdbs', podDisruptionBudgets, ['default']],
  ['operator', (cfg) => operatorDeployment(cfg, { replicas: 2 }), ['default', 'placement']],
];

describe('workload goldens', () => {
  it.each(
    CASES.flatMap(([name, render, variants]) => variants.map((v) => [`${name}.${v}`, render, v] as const)),
  )('%s', (file, render, v) => {
    golden.expectJson(`${file}.json`, render(variant(v)));
  });
});

describe('podDisruptionBudgets', () => {
  it.each([
    [1, []],
    [2, [1, 1]],
    [3, [2, 2]],
  ])('with %i replicas: minAvailable %j', (replicas, minAvailable) => {
    const pdbs = podDisruptionBudgets(installConfig({ infraReplicas: replicas }));
    expect(pdbs.map((p) => p.spec.minAvailable)).toEqual(minAvailable);
    expect(pdbs.map((p) => p.metadata.name)).toEqual(
      replicas > 1 ? ['virt-api-pdb', 'virt-controller-pdb'] : [],
    );
  });

  it('the operator has one only with more than one replica', () => {
    expect(operatorDeployment(installConfig(), { replicas: 1 }).map((o) => o.kind)).toEqual(['Deployment']);
    expect(operatorDeployment(installConfig(), { replicas: 2 }).map((o) => o.kind)).toEqual([
      'Deployment',
      'PodDisruptionBudget',
    ]);
  });
});

describe('handler containers', () => {
  const names = (cfg: InstallConfig): string[] =>
    handlerDaemonSet(cfg).spec.template.spec.containers.map((c) => c.name);

  it.each([
    ['default', {}, ['virt-handler']],
    ['PersistentReservation', { featureGates: ['PersistentReservation'] }, ['virt-handler', 'pr-helper']],
    ['another launcher image', { launcherImage: 'other:v1' }, ['virt-handler', 'virt-launcher-image-holder']],
  ])('%s', (_, overrides: Partial<InstallConfig>, want) => {
    expect(names(installConfig(overrides))).toEqual(want);
  });

  it('runs on the host network only when told, with the host network DNS policy', () => {
    const spec = (hostNetwork: boolean): Record<string, unknown> =>
      handlerDaemonSet(installConfig({ handler: { hostNetwork, healthPort: 4100, consoleServerPort: 4101 } }))
        .spec.template.spec;
    expect(spec(true)).toMatchObject({
      hostNetwork: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      hostPID: true,
    });
    expect(spec(false)).not.toHaveProperty('hostNetwork');
    expect(spec(false)).not.toHaveProperty('dnsPolicy');
  });
});

describe('placement', () => {
  it('keeps the spread term first and appends the given anti-affinity terms', () => {
    const spec = apiDeployment(installConfig({ infraPlacement: PLACEMENT })).spec.template.spec;
    expect(spec.affinity).toMatchObject({
      nodeAffinity: NODE_AFFINITY,
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } },
          { weight: 50 },
        ],
      },
    });
    expect(spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'node-role.deckhouse.io/system': '' });
    expect(spec.tolerations.map((t) => t.key)).toEqual(['CriticalAddonsOnly', 'dedicated.deckhouse.io']);
  });

  it('gives the handler no affinity of its own', () => {
    expect(handlerDaemonSet(installConfig()).spec.template.spec).not.toHaveProperty('affinity');
  });
});
