/** The cluster counts of a migration pass: running migrations, outbound per node, another owner, active Pods. */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { MigrationPhase } from '../../kubevirt/v1/migration.ts';
import { pod, podReady, vmi, withPodPhase } from '../../kubevirt/testing/objects.ts';
import { activePodCount, otherMigrationActive, outboundFromNode, runningMigrations } from './cluster-view.ts';
import { migration, onVmiNode, withMigrationPhase, withMigrationState } from './testing/migrations.ts';

const named = (uid: string, phase?: MigrationPhase, vmiName = 'testvm'): VirtualMachineInstanceMigration =>
  migration(
    (m) => {
      m.metadata.uid = uid;
      m.metadata.name = uid;
      m.spec.vmiName = vmiName;
    },
    ...(phase === undefined ? [] : [withMigrationPhase(phase)]),
  );

describe('runningMigrations', () => {
  it.each<[string, VirtualMachineInstanceMigration, boolean, boolean]>([
    ['unset phase, no target Pod', named('a'), false, false],
    ['Pending without a target Pod', named('a', 'Pending'), false, false],
    ['Pending with a target Pod', named('a', 'Pending'), true, true],
    ['Scheduling', named('a', 'Scheduling'), false, true],
    ['Running', named('a', 'Running'), false, true],
    ['Succeeded, Pod left', named('a', 'Succeeded'), true, false],
    ['Failed', named('a', 'Failed'), false, false],
  ])('%s', (_n, m, hasPod, want) => {
    expect(runningMigrations([m], () => hasPod)).toEqual(want ? [m] : []);
  });
});

describe('outboundFromNode', () => {
  const vmis: Record<string, VirtualMachineInstance> = {
    onA: vmi(onVmiNode('a')),
    onB: vmi(onVmiNode('b')),
    fromA: vmi(onVmiNode('b'), withMigrationState({ sourceNode: 'a' })),
  };
  it.each<[string, string[], number]>([
    ['none', [], 0],
    ['a VMI on the node', ['onA'], 1],
    ['a VMI elsewhere', ['onB'], 0],
    ['a VMI that moved off the node while migrating', ['fromA'], 1],
    ['a migration whose VMI is gone', ['gone'], 0],
    ['all', ['onA', 'onB', 'fromA', 'gone'], 2],
  ])('%s', (_n, names, want) => {
    const running = names.map((n) => named(n, 'Running', n));
    expect(outboundFromNode('a', running, (m) => vmis[m.spec.vmiName ?? ''])).toBe(want);
  });
});

describe('otherMigrationActive', () => {
  const self = named('self', 'Pending');
  it.each<[string, VirtualMachineInstance, VirtualMachineInstanceMigration[], boolean]>([
    ['no migrationState', vmi(), [self], false],
    ['its own migrationState', vmi(withMigrationState({ migrationUid: 'self' })), [self], false],
    ['an empty uid', vmi(withMigrationState({ migrationUid: '' })), [self], false],
    [
      'another running one',
      vmi(withMigrationState({ migrationUid: 'o' })),
      [self, named('o', 'Running')],
      true,
    ],
    [
      'another final one',
      vmi(withMigrationState({ migrationUid: 'o' })),
      [self, named('o', 'Failed')],
      false,
    ],
    ['another that no longer exists', vmi(withMigrationState({ migrationUid: 'o' })), [self], false],
  ])('%s', (_n, v, all, want) => {
    expect(otherMigrationActive(v, self, all)).toBe(want);
  });
});

describe('activePodCount', () => {
  it('counts the Pods that are not Succeeded or Failed', () => {
    const pods = [pod(), pod(podReady('a')), pod(withPodPhase('Failed')), pod(withPodPhase('Succeeded'))];
    expect(activePodCount(pods)).toBe(2);
  });
});
