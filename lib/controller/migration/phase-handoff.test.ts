/** decideMigration from the hand-off to the end: PreparingTarget, TargetReady, Running, cancel, final. */
import { describe, expect, it } from '@jest/globals';
import { migrationDeleting, withMigrationCondition, withMigrationState } from './testing/migrations.ts';
import { pod, podReady, vmi, withPhase, withVmiCondition } from '../../kubevirt/testing/objects.ts';
import {
  at,
  expectRow,
  input,
  ABORT,
  POD_DOWN,
  REMOVED,
  running,
  started,
  named,
  targetFailed,
  targetReady,
  type Row,
} from './testing/phase-rows.ts';
import { decideMigration } from './phase.ts';

const rows: Row[] = [
  // Scheduled: hand-off
  [
    'Scheduled, target running: hand off',
    { migration: at('Scheduled'), targetPod: targetReady },
    { phase: 'Scheduled', actions: [{ kind: 'handOff' }] },
  ],
  [
    'Scheduled, handed off (target node on the VMI): PreparingTarget',
    {
      migration: at('Scheduled'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ targetNode: 'node2' })),
    },
    { phase: 'PreparingTarget', actions: [] },
  ],
  [
    'Scheduled, handed off and cancelled: ask the abort, keep the target',
    {
      migration: at('Scheduled', migrationDeleting),
      targetPod: targetReady,
      vmi: running(withMigrationState({ targetNode: 'node2' })),
    },
    { phase: 'Scheduled', actions: [], addConditions: [ABORT], failure: undefined },
  ],
  [
    'Scheduled, target Pod failed: Failed',
    { migration: at('Scheduled'), targetPod: targetFailed },
    { phase: 'Failed', failure: POD_DOWN, actions: [] },
  ],
  // PreparingTarget, TargetReady
  [
    'PreparingTarget, target address known: TargetReady',
    {
      migration: at('PreparingTarget'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ targetNode: 'node2', targetNodeAddress: '10.0.0.2' })),
    },
    { phase: 'TargetReady', actions: [] },
  ],
  [
    'PreparingTarget, no address yet: stays',
    {
      migration: at('PreparingTarget'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ targetNode: 'node2' })),
    },
    { phase: 'PreparingTarget', actions: [] },
  ],
  [
    'PreparingTarget, target Pod failed before the start: fail it on the VMI too',
    {
      migration: at('PreparingTarget'),
      targetPod: targetFailed,
      vmi: running(withMigrationState({ targetNode: 'node2' })),
    },
    { phase: 'Failed', failure: POD_DOWN, actions: [{ kind: 'failOnVmi' }] },
  ],
  [
    'TargetReady, target Pod gone before the start: fail it on the VMI too',
    {
      migration: at('TargetReady'),
      vmi: running(withMigrationState({ targetNode: 'node2', targetNodeAddress: 'a' })),
    },
    { phase: 'Failed', failure: REMOVED, actions: [{ kind: 'failOnVmi' }] },
  ],
  [
    'TargetReady, target Pod gone after the start: the handler ends it',
    { migration: at('TargetReady'), vmi: running(withMigrationState(started)) },
    { phase: 'Failed', failure: REMOVED, actions: [] },
  ],
  [
    'TargetReady, direct migration ports open: the handler ends it',
    {
      migration: at('TargetReady'),
      vmi: running(withMigrationState({ targetDirectMigrationNodePorts: { '4135': 0 } })),
    },
    { phase: 'Failed', actions: [] },
  ],
  [
    'PreparingTarget, VMI migrationState cleared: Failed',
    { migration: at('PreparingTarget'), targetPod: targetReady },
    { phase: 'Failed', failure: "VMI's migration state was cleared during the active migration." },
  ],
  [
    'PreparingTarget, another migration owns the VMI state: Failed',
    {
      migration: at('PreparingTarget'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ migrationUid: 'other' })),
    },
    {
      phase: 'Failed',
      failure: "VMI's migration state was taken over by another migration job during active migration.",
    },
  ],
  [
    'TargetReady, source started: Running',
    { migration: at('TargetReady'), targetPod: targetReady, vmi: running(withMigrationState(started)) },
    { phase: 'Running' },
  ],
  // Running
  [
    'Running, completed: Succeeded',
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ ...started, completed: true })),
    },
    { phase: 'Succeeded', event: 'Source node reported migration succeeded', actions: [] },
  ],
  ...(['HotVCPUChange', 'HotMemoryChange', 'MigrationRequired'] as const).map((c): Row => [
    `Running, completed but ${c}: stays`,
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ ...started, completed: true }), withVmiCondition(c, 'True')),
    },
    { phase: 'Running', event: undefined },
  ]),
  [
    'Running, completed, HotMemoryChange False: Succeeded',
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: running(
        withMigrationState({ ...started, completed: true }),
        withVmiCondition('HotMemoryChange', 'False'),
      ),
    },
    { phase: 'Succeeded' },
  ],
  [
    'Running, target domain ready: mark the target Pod',
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: running(
        withMigrationState({ ...started, targetNodeDomainReadyTimestamp: '2026-01-01T00:00:09Z' }),
      ),
    },
    { phase: 'Running', actions: [{ kind: 'markTargetReady', timestamp: '2026-01-01T00:00:09Z' }] },
  ],
  [
    'Running, target Pod already marked: nothing',
    {
      migration: at('Running'),
      targetPod: pod(named, podReady('node2'), (p) => {
        p.metadata.annotations = { 'kubevirt.io/migration-target-ready-timestamp': 'x' };
      }),
      vmi: running(
        withMigrationState({ ...started, targetNodeDomainReadyTimestamp: '2026-01-01T00:00:09Z' }),
      ),
    },
    { phase: 'Running', actions: [] },
  ],
  [
    'Running, source reports failure: Failed',
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ ...started, failed: true })),
    },
    { phase: 'Failed', failure: 'source node reported migration failed' },
  ],
  [
    'Running, cancelled: abort on the VMI, condition',
    {
      migration: at('Running', migrationDeleting),
      targetPod: targetReady,
      vmi: running(withMigrationState(started)),
    },
    { phase: 'Running', actions: [{ kind: 'abortOnVmi' }], addConditions: [ABORT], failure: undefined },
  ],
  [
    'Running, cancel already signalled: the migration goes on',
    {
      migration: at('Running', migrationDeleting, withMigrationCondition(ABORT)),
      targetPod: targetReady,
      vmi: running(withMigrationState({ ...started, abortRequested: true, completed: true })),
    },
    { phase: 'Succeeded', actions: [], addConditions: [] },
  ],
  [
    'Running, VMI stopped: Failed',
    {
      migration: at('Running'),
      targetPod: targetReady,
      vmi: vmi(withPhase('Failed'), withMigrationState(started)),
    },
    { phase: 'Failed', failure: 'Migration failed vmi shutdown during migration.' },
  ],
  [
    'Running, target Pod failed: Failed',
    { migration: at('Running'), targetPod: targetFailed, vmi: running(withMigrationState(started)) },
    { phase: 'Failed', failure: POD_DOWN, actions: [] },
  ],
  // final
  [
    'Succeeded: finalize with the VMI state',
    {
      migration: at('Succeeded'),
      targetPod: targetReady,
      vmi: running(withMigrationState({ ...started, completed: true })),
    },
    { phase: 'Succeeded', actions: [{ kind: 'finalize', copyMigrationState: true }], failure: undefined },
  ],
  [
    'Failed, the VMI state is another migration’s: finalize without it',
    { migration: at('Failed'), vmi: running(withMigrationState({ ...started, migrationUid: 'other' })) },
    { phase: 'Failed', actions: [{ kind: 'finalize', copyMigrationState: false }] },
  ],
  [
    'Failed, target gone before the start: fail on the VMI, finalize',
    { migration: at('Failed'), vmi: running(withMigrationState({ targetNode: 'node2' })) },
    { phase: 'Failed', actions: [{ kind: 'failOnVmi' }, { kind: 'finalize', copyMigrationState: true }] },
  ],
];

describe('decideMigration from the hand-off', () => {
  it.each(rows)('%s', (_name, over, want) => {
    expectRow(over, want);
  });

  it('does not change its inputs', () => {
    const i = input({
      migration: at('Running', migrationDeleting),
      targetPod: targetReady,
      vmi: running(withMigrationState(started)),
    });
    const before = structuredClone(i);
    decideMigration(i);
    expect(i).toEqual(before);
  });
});
