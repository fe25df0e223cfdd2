import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import {
  pod,
  podReady,
  T0,
  vmi,
  vmiDeleting,
  withPhase,
  withPodCondition,
  withPodPhase,
  withVmiCondition,
  type Option,
} from '../../kubevirt/testing/objects.ts';
import type { MigrationDecision, MigrationInput } from './decision.ts';
import { decideMigration } from './phase.ts';
import {
  migration,
  migrationDeleting,
  onVmiNode,
  withMigrationAnnotation,
  withMigrationCondition,
  withMigrationPhase,
  withMigrationState,
} from './testing/migrations.ts';

const TARGET = 'virt-launcher-testvm-target';
const CREATED = T0 + 1000;
const named: Option<Pod> = (p) => {
  p.metadata.name = TARGET;
  p.metadata.creationTimestamp = new Date(CREATED).toISOString();
};
const targetPending = pod(named);
const unschedulable = pod(
  named,
  withPodCondition({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }),
);
const targetReady = pod(named, podReady('node2'));
const targetFailed = pod(named, podReady('node2'), withPodPhase('Failed'));
const running = (...opts: Option<VirtualMachineInstance>[]): VirtualMachineInstance =>
  vmi(withPhase('Running', 'Scheduled'), onVmiNode('node1'), ...opts);
const started = {
  targetNode: 'node2',
  targetNodeAddress: '10.0.0.2',
  startTimestamp: '2026-01-01T00:00:05Z',
};

const input = (over: Partial<MigrationInput>): MigrationInput => ({
  migration: migration(),
  vmi: running(),
  targetPod: undefined,
  sourcePod: pod(podReady('node1')),
  limits: { running: 0, outboundFromNode: 0 },
  otherMigrationActive: false,
  nowMs: CREATED + 10_000,
  ...over,
});
const at = (phase: Parameters<typeof withMigrationPhase>[0], ...opts: Parameters<typeof migration>) =>
  migration(withMigrationPhase(phase), ...opts);

const CANCELED = 'Migration failed due to being canceled';
const REMOVED = 'Migration target pod was removed during active migration.';
const POD_DOWN = 'Migration failed because target pod shutdown during migration';
const QUOTA = 'migrationRejectedByResourceQuota';
const ABORT = 'migrationAbortRequested';

/** The decision's fields a row checks, each compared whole (undefined: must be absent). */
type Want = { [K in keyof MigrationDecision]?: MigrationDecision[K] | undefined };
type Row = [string, Partial<MigrationInput>, Want];

const rows: Row[] = [
  // a new migration
  ['new: Pending', {}, { phase: 'Pending', actions: [], failure: undefined }],
  [
    'new, another migration of the VMI active: Failed',
    { otherMigrationActive: true },
    {
      phase: 'Failed',
      failure: 'VMI is not eligible for migration because another migration job is in progress.',
      syncError: 'vmi is ineligible for migration because another migration job is running',
    },
  ],
  // the VMI is gone
  [
    'VMI gone: delete the migration',
    { vmi: undefined },
    { phase: undefined, actions: [{ kind: 'deleteMigration' }] },
  ],
  [
    'VMI gone, migration deleting: nothing',
    { vmi: undefined, migration: migration(migrationDeleting) },
    { actions: [] },
  ],
  // Pending: the target Pod
  [
    'Pending: create the target Pod',
    { migration: at('Pending') },
    { phase: 'Pending', actions: [{ kind: 'createTargetPod' }] },
  ],
  [
    'Pending, cluster limit reached: wait 5 s',
    { migration: at('Pending'), limits: { running: 5, outboundFromNode: 0 } },
    { phase: 'Pending', actions: [], requeueAfterMs: 5000 },
  ],
  [
    'Pending, a cluster limit of 1 in use: wait',
    {
      migration: at('Pending'),
      limits: { running: 1, outboundFromNode: 0, parallelMigrationsPerCluster: 1 },
    },
    { actions: [], requeueAfterMs: 5000 },
  ],
  [
    'Pending, two outbound from the node: wait',
    { migration: at('Pending'), limits: { running: 2, outboundFromNode: 2 } },
    { actions: [], requeueAfterMs: 5000 },
  ],
  [
    'Pending, outbound limit raised to 3: create',
    {
      migration: at('Pending'),
      limits: { running: 2, outboundFromNode: 2, parallelOutboundMigrationsPerNode: 3 },
    },
    { actions: [{ kind: 'createTargetPod' }], requeueAfterMs: undefined },
  ],
  [
    'Pending, VMI not running yet: wait without a target Pod',
    { migration: at('Pending'), vmi: vmi(withPhase('Scheduled')) },
    { phase: 'Pending', actions: [], requeueAfterMs: undefined },
  ],
  ['Pending, no source Pod: nothing', { migration: at('Pending'), sourcePod: undefined }, { actions: [] }],
  [
    'Pending, VMI deleting: nothing',
    { migration: at('Pending'), vmi: running(vmiDeleting) },
    { actions: [] },
  ],
  [
    'Pending, another migration active: sync error, no Pod',
    { migration: at('Pending'), otherMigrationActive: true },
    {
      phase: 'Pending',
      actions: [],
      syncError: 'vmi is ineligible for migration because another migration job is running',
    },
  ],
  [
    'Pending, target Pod created: Scheduling, look again at the pending timeout',
    { migration: at('Pending'), targetPod: targetPending },
    { phase: 'Scheduling', actions: [], requeueAfterMs: (15 * 60 - 10) * 1000 },
  ],
  [
    'Pending, create refused by quota: condition',
    {
      migration: at('Pending'),
      sourcePod: undefined,
      createError: 'pods "x" is forbidden: exceeded quota: q',
    },
    { phase: 'Pending', addConditions: [QUOTA] },
  ],
  [
    'Pending, quota condition already there: not again',
    {
      migration: at('Pending', withMigrationCondition(QUOTA)),
      sourcePod: undefined,
      createError: 'exceeded quota',
    },
    { addConditions: [] },
  ],
  [
    'Pending, cancelled: delete the target Pod, abort requested, Failed',
    { migration: at('Pending', migrationDeleting), targetPod: targetPending },
    {
      phase: 'Failed',
      failure: CANCELED,
      addConditions: [ABORT],
      actions: [
        { kind: 'deleteTargetPod', message: `migration canceled and pod default/${TARGET} is deleted` },
      ],
    },
  ],
  [
    'Pending, cancelled, abort already requested, no Pod: Failed only',
    { migration: at('Pending', migrationDeleting, withMigrationCondition(ABORT)) },
    { phase: 'Failed', failure: CANCELED, addConditions: [], actions: [] },
  ],
  // Scheduling
  [
    'Scheduling, target ready: Scheduled',
    { migration: at('Scheduling'), targetPod: targetReady },
    { phase: 'Scheduled', actions: [] },
  ],
  [
    'Scheduling, quota condition: removed',
    { migration: at('Scheduling', withMigrationCondition(QUOTA)), targetPod: targetPending },
    { phase: 'Scheduling', removeConditions: [QUOTA] },
  ],
  [
    'Scheduling, unschedulable 5 min: delete the target Pod',
    { migration: at('Scheduling'), targetPod: unschedulable, nowMs: CREATED + 300_000 },
    {
      phase: 'Scheduling',
      actions: [
        { kind: 'deleteTargetPod', message: `unschedulable pod default/${TARGET} timeout period exceeded` },
      ],
    },
  ],
  [
    'Scheduling, unschedulable 100 s: look again at 5 min',
    { migration: at('Scheduling'), targetPod: unschedulable, nowMs: CREATED + 100_000 },
    { actions: [], requeueAfterMs: 200_000 },
  ],
  [
    'Scheduling, pending 15 min: delete the target Pod',
    { migration: at('Scheduling'), targetPod: targetPending, nowMs: CREATED + 900_000 },
    {
      actions: [
        { kind: 'deleteTargetPod', message: `pending pod default/${TARGET} timeout period exceeded` },
      ],
    },
  ],
  [
    'Scheduling, unschedulable timeout annotated 30 s: delete at 30 s',
    {
      migration: at(
        'Scheduling',
        withMigrationAnnotation('kubevirt.io/migrationUnschedulablePodTimeoutSeconds', '30'),
      ),
      targetPod: unschedulable,
      nowMs: CREATED + 30_000,
    },
    {
      actions: [
        { kind: 'deleteTargetPod', message: `unschedulable pod default/${TARGET} timeout period exceeded` },
      ],
    },
  ],
  [
    'Scheduling, pending timeout annotated 60 s: delete at 60 s',
    {
      migration: at(
        'Scheduling',
        withMigrationAnnotation('kubevirt.io/migrationPendingPodTimeoutSeconds', '60'),
      ),
      targetPod: targetPending,
      nowMs: CREATED + 60_000,
    },
    {
      actions: [
        { kind: 'deleteTargetPod', message: `pending pod default/${TARGET} timeout period exceeded` },
      ],
    },
  ],
  [
    'Scheduling, unparsable timeout annotation: the default',
    {
      migration: at(
        'Scheduling',
        withMigrationAnnotation('kubevirt.io/migrationUnschedulablePodTimeoutSeconds', 'soon'),
      ),
      targetPod: unschedulable,
      nowMs: CREATED + 31_000,
    },
    { actions: [], requeueAfterMs: 269_000 },
  ],
  [
    'Scheduling, target Pod gone: Failed',
    { migration: at('Scheduling') },
    { phase: 'Failed', failure: REMOVED },
  ],
  [
    'Scheduling, cancelled: delete the target Pod, Failed',
    { migration: at('Scheduling', migrationDeleting), targetPod: targetPending },
    {
      phase: 'Failed',
      failure: CANCELED,
      addConditions: [ABORT],
      actions: [
        { kind: 'deleteTargetPod', message: `migration canceled and pod default/${TARGET} is deleted` },
      ],
    },
  ],
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

describe('decideMigration', () => {
  it.each(rows)('%s', (_name, over, want) => {
    const d = decideMigration(input(over));
    const got = Object.fromEntries(Object.keys(want).map((k) => [k, d[k as keyof MigrationDecision]]));
    expect(got).toEqual(want);
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
