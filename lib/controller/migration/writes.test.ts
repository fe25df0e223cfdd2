/** The VMI and migration objects a migration pass writes (vmi-writes.ts, migration-writes.ts, target-cleanup.ts). */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, podDeleting, podReady, T0, vmi } from '../../kubevirt/testing/objects.ts';
import { migrationConfigurationOf } from './config.ts';
import type { MigrationDecision } from './decision.ts';
import { migrationMetadata, migrationStatus, releasedFinalizers } from './migration-writes.ts';
import { failedTargetToDelete } from './target-cleanup.ts';
import {
  migration,
  migrationDeleting,
  onVmiNode,
  withMigrationCondition,
  withMigrationPhase,
  withMigrationState,
} from './testing/migrations.ts';
import { abortedVmi, failedOnVmi, handedOffVmi } from './vmi-writes.ts';

const FIN = 'kubevirt.io/migrationJobFinalize';
const NOW = '2026-01-01T00:00:00Z';
const target = pod((p) => (p.metadata.name = 'virt-launcher-testvm-abcde'), podReady('node2'));

describe('handedOffVmi', () => {
  it('names the migration, both nodes and Pods, the configuration, and labels the target node', () => {
    const before = vmi(onVmiNode('node1'), withMigrationState({ migrationUid: 'old', completed: true }));
    const out = handedOffVmi({
      vmi: before,
      migration: migration(),
      targetPod: target,
      sourcePod: 'virt-launcher-testvm-xyz',
      config: migrationConfigurationOf(undefined),
    });
    expect(out.metadata.labels?.['kubevirt.io/migrationTargetNodeName']).toBe('node2');
    expect(out.status?.migrationState).toEqual({
      migrationUid: 'mig-uid-1',
      sourceNode: 'node1',
      sourcePod: 'virt-launcher-testvm-xyz',
      targetNode: 'node2',
      targetPod: 'virt-launcher-testvm-abcde',
      migrationConfiguration: migrationConfigurationOf(undefined),
    });
    expect(before.status?.migrationState?.migrationUid).toBe('old');
  });
  it('names the target attachment Pod of a VMI with hotplugged volumes', () => {
    const out = handedOffVmi({
      vmi: vmi(onVmiNode('node1')),
      migration: migration(),
      targetPod: target,
      sourcePod: '',
      config: migrationConfigurationOf(undefined),
      attachmentPodUid: 'attach-uid',
    });
    expect(out.status?.migrationState?.targetAttachmentPodUID).toBe('attach-uid');
  });
});

describe('abortedVmi and failedOnVmi', () => {
  it('abort: abortRequested on the migrationState, nothing else', () => {
    const out = abortedVmi(vmi(withMigrationState({ targetNode: 'node2' })));
    expect(out.status?.migrationState).toEqual({
      migrationUid: 'mig-uid-1',
      targetNode: 'node2',
      abortRequested: true,
    });
  });
  it('fail: started and ended now, failed and completed', () => {
    const out = failedOnVmi(vmi(withMigrationState({ targetNode: 'node2' })), T0);
    expect(out.status?.migrationState).toEqual({
      migrationUid: 'mig-uid-1',
      targetNode: 'node2',
      startTimestamp: NOW,
      endTimestamp: NOW,
      failed: true,
      completed: true,
    });
  });
  it('without a migrationState both leave the VMI as it is', () => {
    expect(abortedVmi(vmi())).toEqual(vmi());
    expect(failedOnVmi(vmi(), T0)).toEqual(vmi());
  });
});

describe('migrationMetadata', () => {
  it.each<[string, VirtualMachineInstanceMigration, string[] | undefined]>([
    ['new: the finalizer is added', migration(), [FIN]],
    ['running: kept once', migration((m) => (m.metadata.finalizers = [FIN])), [FIN]],
    ['being deleted: not added again', migration(migrationDeleting), undefined],
    ['final: not added', migration(withMigrationPhase('Succeeded')), undefined],
  ])('%s', (_n, m, finalizers) => {
    const meta = migrationMetadata(m);
    expect(meta.labels).toEqual({ 'kubevirt.io/vmi-name': 'testvm' });
    expect(meta.finalizers).toEqual(finalizers);
  });
  it('releasedFinalizers drops only the migration finalizer', () => {
    expect(releasedFinalizers(migration((m) => (m.metadata.finalizers = ['a', FIN])))).toEqual(['a']);
  });
});

describe('migrationStatus', () => {
  const decision = (over: Partial<MigrationDecision>): MigrationDecision => ({
    phase: undefined,
    actions: [],
    addConditions: [],
    removeConditions: [],
    ...over,
  });
  it('a new phase gets its transition time; the same phase none', () => {
    const m = migration(withMigrationPhase('Scheduling'));
    const base = { vmi: vmi(), sourcePod: undefined, nowMs: T0 };
    expect(migrationStatus({ ...base, migration: m, decision: decision({ phase: 'Scheduled' }) })).toEqual({
      phase: 'Scheduled',
      phaseTransitionTimestamps: [{ phase: 'Scheduled', phaseTransitionTimestamp: NOW }],
    });
    expect(migrationStatus({ ...base, migration: m, decision: decision({ phase: 'Scheduling' }) })).toEqual({
      phase: 'Scheduling',
    });
  });
  it('conditions are added once and removed', () => {
    const m = migration(
      withMigrationPhase('Scheduling'),
      withMigrationCondition('migrationRejectedByResourceQuota'),
    );
    const out = migrationStatus({
      migration: m,
      decision: decision({
        phase: 'Scheduling',
        addConditions: ['migrationAbortRequested', 'migrationAbortRequested'],
        removeConditions: ['migrationRejectedByResourceQuota'],
      }),
      vmi: vmi(),
      sourcePod: undefined,
      nowMs: T0,
    });
    expect(out.conditions).toEqual([{ type: 'migrationAbortRequested', status: 'True', lastProbeTime: NOW }]);
  });
  it('Pending records the source Pod; a final pass copies the VMI migrationState', () => {
    const pending = migrationStatus({
      migration: migration(),
      decision: decision({ phase: 'Pending' }),
      vmi: vmi(),
      sourcePod: 'virt-launcher-testvm-xyz',
      nowMs: T0,
    });
    expect(pending.migrationState).toEqual({ sourcePod: 'virt-launcher-testvm-xyz' });
    const state = { completed: true, targetNode: 'node2' };
    const final = migrationStatus({
      migration: migration(withMigrationPhase('Succeeded')),
      decision: decision({ phase: 'Succeeded', actions: [{ kind: 'finalize', copyMigrationState: true }] }),
      vmi: vmi(withMigrationState(state)),
      sourcePod: 'ignored',
      nowMs: T0,
    });
    expect(final.migrationState).toEqual({ migrationUid: 'mig-uid-1', ...state });
  });
});

describe('failedTargetToDelete', () => {
  const failed = migration(withMigrationPhase('Failed'));
  const deleting = pod(podDeleting);
  it.each<[string, VirtualMachineInstanceMigration, string, Pod | undefined, Pod | undefined]>([
    ['Failed, target on another node: deleted', failed, 'node1', target, target],
    ['Failed, no target', failed, 'node1', undefined, undefined],
    ['Failed, the VMI moved to the target node: kept', failed, 'node2', target, undefined],
    ['Failed, target already deleting', failed, 'node1', deleting, undefined],
    ['Succeeded: kept', migration(withMigrationPhase('Succeeded')), 'node1', target, undefined],
    ['Running: kept', migration(withMigrationPhase('Running')), 'node1', target, undefined],
  ])('%s', (...[, m, node, found, want]) => {
    expect(failedTargetToDelete(m, vmi(onVmiNode(node)), found)).toEqual(want);
  });
});
