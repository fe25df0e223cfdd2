import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { LABELS } from '../generate/names.ts';
import { ABSENT, type ComponentObservation } from '../status/components.ts';
import { observeComponents } from './observe.ts';

type Workload = KubeObject & { spec?: unknown; status?: unknown };

const workload = (
  generation: number,
  spec: Record<string, unknown>,
  status?: Record<string, number>,
): Workload => ({
  metadata: { name: 'w', generation },
  spec: { ...spec, template: { metadata: { labels: { [LABELS.version]: 'v1' } } } },
  ...(status !== undefined && { status }),
});

const deploymentStatus = {
  observedGeneration: 3,
  replicas: 3,
  updatedReplicas: 2,
  readyReplicas: 1,
  availableReplicas: 1,
};
const daemonSetStatus = {
  observedGeneration: 2,
  desiredNumberScheduled: 4,
  currentNumberScheduled: 4,
  updatedNumberScheduled: 3,
  numberReady: 2,
  numberAvailable: 1,
};

describe('observeComponents', () => {
  it.each<[string, Workload, ComponentObservation]>([
    [
      'a Deployment: its counts, the version its template carries, current at its generation',
      workload(3, { replicas: 2 }, deploymentStatus),
      { version: 'v1', current: true, desired: 2, pods: 3, updated: 2, ready: 1, available: 1 },
    ],
    [
      'a Deployment its controller has not seen yet: replicas default to 1, no status counts as none',
      workload(1, {}),
      { version: 'v1', current: false, desired: 1, pods: 0, updated: 0, ready: 0, available: 0 },
    ],
    [
      'a Deployment observed at an older generation is not current',
      workload(4, { replicas: 2 }, deploymentStatus),
      { version: 'v1', current: false, desired: 2, pods: 3, updated: 2, ready: 1, available: 1 },
    ],
  ])('%s', (_, deployment, want) => {
    expect(observeComponents((kind) => (kind === 'Deployment' ? deployment : undefined))['virt-api']).toEqual(
      want,
    );
  });

  it('a DaemonSet: desired and current from its scheduling counts', () => {
    const ds = workload(2, {}, daemonSetStatus);
    expect(observeComponents((kind) => (kind === 'DaemonSet' ? ds : undefined))['virt-handler']).toEqual({
      version: 'v1',
      current: true,
      desired: 4,
      pods: 4,
      updated: 3,
      ready: 2,
      available: 1,
    });
  });

  it('looks each component up by its kind and name; a missing one is absent', () => {
    const asked: string[] = [];
    const seen = observeComponents((kind, name) => {
      asked.push(`${kind} ${name}`);
      return undefined;
    });
    expect(asked).toEqual(['Deployment virt-api', 'Deployment virt-controller', 'DaemonSet virt-handler']);
    expect(seen).toEqual({ 'virt-api': ABSENT, 'virt-controller': ABSENT, 'virt-handler': ABSENT });
  });

  it('a workload without the version label has no version', () => {
    const bare: KubeObject = { metadata: { name: 'w' } };
    expect(observeComponents(() => bare)['virt-controller']).not.toHaveProperty('version');
  });
});
