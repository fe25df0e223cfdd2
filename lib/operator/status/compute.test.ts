import { describe, expect, it } from '@jest/globals';
import type { KubeVirtStatus } from '../../kubevirt/v1/kubevirt.ts';
import { ABSENT } from './components.ts';
import {
  computeKubeVirtStatus,
  type DeletionObservation,
  type InstallObservation,
  type StatusObservation,
} from './compute.ts';
import { components, installing, workload } from './testing/observations.ts';

const time = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

/** The status after each observation in turn, the i-th at time(i). */
function after(...steps: StatusObservation[]): KubeVirtStatus {
  return steps.reduce<KubeVirtStatus>((cur, o, i) => computeKubeVirtStatus(cur, o, time(i)), {});
}

function summary(s: KubeVirtStatus): {
  phase?: string;
  observed?: string;
  conditions: Record<string, string>;
} {
  return {
    ...(s.phase !== undefined && { phase: s.phase }),
    ...(s.observedKubeVirtVersion !== undefined && { observed: s.observedKubeVirtVersion }),
    conditions: Object.fromEntries(
      (s.conditions ?? []).map((c) => [c.type, `${c.status} ${c.reason ?? ''}`]),
    ),
  };
}

const each = (
  status: string,
  reason: string,
  types = ['Available', 'Progressing', 'Degraded'],
): Record<string, string> =>
  Object.fromEntries(types.map((t, i) => [t, `${status[i] === 'T' ? 'True' : 'False'} ${reason}`]));

const V1 = installing('v1');
const missingApi = installing('v1', {
  missing: ['Deployment virt-api'],
  components: components('v1', { 'virt-api': ABSENT }),
});
const handlerNotReady = (version: string): InstallObservation =>
  installing(version, {
    components: components(version, { 'virt-handler': workload(version, 3, { ready: 2 }) }),
  });
const toV2 = installing('v2', { components: components('v1') });
const refused: InstallObservation = {
  deleting: false,
  generation: 2,
  operatorVersion: 'v0.9.0',
  syncError: 'KubeVirt "kubevirt" is invalid: spec.imageTag: bad',
  missing: [],
  components: components('v1'),
};
const deleting = (remaining: string[], uninstallRefusal?: string): DeletionObservation => ({
  deleting: true,
  remaining,
  ...(uninstallRefusal !== undefined && { uninstallRefusal }),
});

describe('computeKubeVirtStatus', () => {
  it.each<[string, StatusObservation[], ReturnType<typeof summary>]>([
    [
      'a fresh install with objects missing: Deploying, Created false',
      [missingApi],
      {
        phase: 'Deploying',
        conditions: { Created: 'False DeploymentInProgress', ...each('FTF', 'DeploymentInProgress') },
      },
    ],
    [
      'everything created, a component not ready yet: Progressing',
      [missingApi, handlerNotReady('v1')],
      {
        phase: 'Deploying',
        conditions: { Created: 'True AllResourcesCreated', ...each('FTF', 'DeploymentInProgress') },
      },
    ],
    [
      'every component ready: Deployed, Available, the version observed',
      [missingApi, V1],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('TFF', 'AllComponentsReady') },
      },
    ],
    [
      'an image change: UpdateInProgress, the old version still observed',
      [V1, toV2],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('TTT', 'UpdateInProgress') },
      },
    ],
    [
      'the handler at the new version, the others not yet: still the old version observed',
      [V1, toV2, installing('v2', { components: components('v1', { 'virt-handler': workload('v2', 3) }) })],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('TTT', 'UpdateInProgress') },
      },
    ],
    [
      'every component at the new version: the new version observed',
      [V1, toV2, installing('v2')],
      {
        phase: 'Deployed',
        observed: 'v2',
        conditions: { Created: 'True AllResourcesCreated', ...each('TFF', 'AllComponentsReady') },
      },
    ],
    [
      'a deployed component losing readiness: Degraded',
      [V1, handlerNotReady('v1')],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('FFT', 'ComponentsNotReady') },
      },
    ],
    [
      'a deployed component rolling out new Pods: Progressing, not Degraded',
      [
        V1,
        installing('v1', {
          components: components('v1', { 'virt-api': workload('v1', 2, { pods: 3, updated: 1 }) }),
        }),
      ],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('FTF', 'DeploymentInProgress') },
      },
    ],
    [
      'a deleted object of a deployed install: Created false, Progressing',
      [V1, missingApi],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'False DeploymentInProgress', ...each('FTF', 'DeploymentInProgress') },
      },
    ],
    [
      'a refused configuration: Synchronized false, Degraded',
      [V1, refused],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: {
          Created: 'True AllResourcesCreated',
          ...each('FFT', 'DeploymentFailed'),
          Synchronized: 'False DeploymentFailed',
        },
      },
    ],
    [
      'the configuration fixed: Synchronized gone',
      [V1, refused, V1],
      {
        phase: 'Deployed',
        observed: 'v1',
        conditions: { Created: 'True AllResourcesCreated', ...each('TFF', 'AllComponentsReady') },
      },
    ],
    [
      'deleting: Deleting, Created gone',
      [V1, deleting(['Deployment virt-api'])],
      { phase: 'Deleting', observed: 'v1', conditions: each('FFT', 'DeletionInProgress') },
    ],
    [
      'an uninstall refused: Synchronized false',
      [V1, deleting(['Deployment virt-api'], 'Rejecting the uninstall request')],
      {
        phase: 'Deleting',
        observed: 'v1',
        conditions: { ...each('FFT', 'DeletionInProgress'), Synchronized: 'False DeletionFailed' },
      },
    ],
    [
      'nothing left: Deleted',
      [V1, deleting(['Deployment virt-api']), deleting([])],
      { phase: 'Deleted', observed: 'v1', conditions: each('FFT', 'DeletionInProgress') },
    ],
  ])('%s', (_name, steps, expected) => {
    expect(summary(after(...steps))).toEqual(expected);
  });

  it('comes back deep-equal when nothing changed', () => {
    for (const steps of [
      [V1],
      [missingApi],
      [V1, toV2],
      [V1, handlerNotReady('v1')],
      [V1, deleting(['x'])],
    ]) {
      const status = after(...steps);
      const last = steps[steps.length - 1];
      if (last === undefined) throw new Error('no step');
      expect(computeKubeVirtStatus(status, last, time(30))).toEqual(status);
    }
  });

  it('moves lastTransitionTime only with the status, lastProbeTime with any change', () => {
    const conditions = after(handlerNotReady('v1'), V1).conditions ?? [];
    const at = (type: string): unknown => conditions.find((c) => c.type === type);
    expect(at('Degraded')).toMatchObject({
      status: 'False',
      lastTransitionTime: time(0),
      lastProbeTime: time(1),
    });
    expect(at('Available')).toMatchObject({
      status: 'True',
      lastTransitionTime: time(1),
      lastProbeTime: time(1),
    });
    expect(at('Created')).toMatchObject({ lastTransitionTime: time(0), lastProbeTime: time(0) });
  });

  it('names the target and, once deployed, the observed deployment, the operator and the generation', () => {
    const status = after(toV2, V1);
    expect(status).toMatchObject({
      operatorVersion: 'v0.9.0',
      targetKubeVirtVersion: 'v1',
      targetKubeVirtRegistry: 'registry.example',
      targetDeploymentID: V1.target?.id,
      targetDeploymentConfig: V1.target?.config,
      observedKubeVirtVersion: 'v1',
      observedKubeVirtRegistry: 'registry.example',
      observedDeploymentID: V1.target?.id,
      observedDeploymentConfig: V1.target?.config,
      observedGeneration: 1,
    });
    expect(after(toV2)).not.toHaveProperty('observedKubeVirtVersion');
  });

  it('keeps the target it had when the resource is refused', () => {
    expect(after(V1, refused)).toMatchObject({
      targetKubeVirtVersion: 'v1',
      targetDeploymentID: V1.target?.id,
    });
  });

  it('keeps the status fields it does not compute', () => {
    const current: KubeVirtStatus = {
      defaultArchitecture: 'amd64',
      outdatedVirtualMachineInstanceWorkloads: 3,
    };
    expect(computeKubeVirtStatus(current, V1, time(0))).toMatchObject(current);
  });

  it.each<[string, StatusObservation[], string, string]>([
    ['Deploying', [missingApi], 'Progressing', 'Deploying version v1 with registry registry.example'],
    ['Created false', [missingApi], 'Created', 'Missing: Deployment virt-api'],
    [
      'UpdateInProgress',
      [V1, toV2],
      'Progressing',
      'Transitioning from previous version v1 with registry registry.example to target version v2 using registry registry.example',
    ],
    [
      'ComponentsNotReady',
      [V1, handlerNotReady('v1')],
      'Degraded',
      'Not ready: virt-handler: 2 of 3 ready, 3 updated',
    ],
    [
      'DeploymentFailed',
      [V1, refused],
      'Synchronized',
      'An error occurred during deployment: KubeVirt "kubevirt" is invalid: spec.imageTag: bad',
    ],
    ['DeletionInProgress', [deleting(['x'])], 'Degraded', 'Deletion was triggered'],
    ['DeletionFailed', [deleting(['x'], 'no')], 'Synchronized', 'An error occurred during deletion: no'],
  ])('says %s in KubeVirt words', (_name, steps, type, message) => {
    expect(after(...steps).conditions?.find((c) => c.type === type)?.message).toBe(message);
  });
});
