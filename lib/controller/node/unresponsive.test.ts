import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, T0, vmi, withContainer, withPodPhase } from '../../kubevirt/testing/objects.ts';
import { isAliveLauncher, isNodeUnresponsive, stuckVmis } from './unresponsive.ts';

const node = (heartbeat?: string): KubeObject => ({
  metadata: {
    name: 'n1',
    ...(heartbeat !== undefined && { annotations: { 'kubevirt.io/heartbeat': heartbeat } }),
  },
});
const TIMEOUT = 5 * 60 * 1000;

describe('isNodeUnresponsive', () => {
  it.each<[string, KubeObject | undefined, boolean]>([
    ['node gone', undefined, true],
    ['no heartbeat yet: no handler, left alone', node(), false],
    ['fresh heartbeat', node('2025-12-31T23:58:00Z'), false],
    ['heartbeat exactly at the timeout', node('2025-12-31T23:55:00Z'), false],
    ['stale heartbeat', node('2025-12-31T23:54:59Z'), true],
    ['unparsable heartbeat is not stale', node('yesterday'), false],
  ])('%s', (_n, n, want) => {
    expect(isNodeUnresponsive(n, T0, TIMEOUT)).toBe(want);
  });
});

describe('isAliveLauncher / stuckVmis', () => {
  it.each<[string, Pod, boolean]>([
    ['pending launcher', pod(), true],
    [
      'running launcher',
      pod(withPodPhase('Running'), withContainer({ name: 'compute', ready: true, state: { running: {} } })),
      true,
    ],
    ['failed launcher', pod(withPodPhase('Failed')), false],
    ['succeeded launcher', pod(withPodPhase('Succeeded')), false],
    [
      'every container terminated (stuck terminating)',
      pod(
        withPodPhase('Running'),
        withContainer({ name: 'compute', ready: false, state: { terminated: { exitCode: 0 } } }),
      ),
      false,
    ],
    ['not owned by a VMI', pod((p) => delete p.metadata.ownerReferences), false],
  ])('%s', (_n, p, want) => {
    expect(isAliveLauncher(p)).toBe(want);
  });

  it('VMIs without a live launcher are stuck', () => {
    const a = vmi((v) => (v.metadata.uid = 'a'));
    const b = vmi((v) => (v.metadata.uid = 'b'));
    const c = vmi((v) => (v.metadata.uid = 'c'));
    const owned = (uid: string, ...o: ((p: Pod) => void)[]): Pod =>
      pod((p) => ((p.metadata.ownerReferences ?? [])[0]!.uid = uid), ...o);
    expect(
      stuckVmis([a, b, c], [owned('a'), owned('b', withPodPhase('Failed'))]).map((v) => v.metadata.uid),
    ).toEqual(['b', 'c']);
  });

  it("a live Pod in another namespace naming a VMI's uid does not keep that VMI", () => {
    const a = vmi((v) => (v.metadata.uid = 'a'));
    const elsewhere = pod((p) => {
      p.metadata.namespace = 'other';
      (p.metadata.ownerReferences ?? [])[0]!.uid = 'a';
    });
    expect(stuckVmis([a], [elsewhere]).map((v) => v.metadata.uid)).toEqual(['a']);
  });
});
