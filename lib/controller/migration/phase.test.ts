/** decideMigration from a new migration through Pending and Scheduling: the target Pod, limits, timeouts, cancel. */
import { describe, it } from '@jest/globals';
import { vmi, vmiDeleting, withPhase } from '../../kubevirt/testing/objects.ts';
import {
  at,
  attachmentFailed,
  attachmentPending,
  attachmentReady,
  CANCELED,
  CREATED,
  expectRow,
  QUOTA,
  ABORT,
  REMOVED,
  running,
  TARGET,
  targetPending,
  targetReady,
  unschedulable,
  type Row,
} from './testing/phase-rows.ts';
import {
  migration,
  migrationDeleting,
  withMigrationAnnotation,
  withMigrationCondition,
} from './testing/migrations.ts';

const UNSCHEDULABLE = 'Migration target pod for VMI [default/testvm] is currently unschedulable.';

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
    'Pending, backing off: no target Pod, a warning, look again when it ends',
    { migration: at('Pending'), backoffMs: 12_000 },
    {
      phase: 'Pending',
      actions: [],
      backoff: 'backoff migrating vmi default/testvm',
      requeueAfterMs: 12_000,
    },
  ],
  [
    'Pending, backing off but cancelled: the cancel goes first',
    { migration: at('Pending', migrationDeleting), targetPod: targetPending, backoffMs: 12_000 },
    { backoff: undefined, phase: 'Failed', failure: CANCELED },
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
      warning: UNSCHEDULABLE,
    },
  ],
  [
    'Scheduling, unschedulable 100 s: look again at 5 min',
    { migration: at('Scheduling'), targetPod: unschedulable, nowMs: CREATED + 100_000 },
    { actions: [], requeueAfterMs: 200_000, warning: UNSCHEDULABLE },
  ],
  [
    'Scheduling, pending 15 min: delete the target Pod',
    { migration: at('Scheduling'), targetPod: targetPending, nowMs: CREATED + 900_000 },
    {
      actions: [
        { kind: 'deleteTargetPod', message: `pending pod default/${TARGET} timeout period exceeded` },
      ],
      warning: undefined,
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
  // a VMI with hotplugged volumes: the target's attachment Pod
  [
    'Pending, hotplug, target ready: create its attachment Pod, stay Pending',
    { migration: at('Pending'), targetPod: targetReady, hotplug: true },
    { phase: 'Pending', actions: [{ kind: 'createAttachmentPod' }] },
  ],
  [
    'Pending, hotplug, target not ready yet: no attachment Pod, stay Pending',
    { migration: at('Pending'), targetPod: targetPending, hotplug: true },
    { phase: 'Pending', actions: [] },
  ],
  [
    'Pending, hotplug, attachment Pod not ready: nothing, stay Pending',
    { migration: at('Pending'), targetPod: targetReady, hotplug: true, attachmentPod: attachmentPending },
    { phase: 'Pending', actions: [] },
  ],
  [
    'Pending, hotplug, attachment Pod ready: Scheduling',
    { migration: at('Pending'), targetPod: targetReady, hotplug: true, attachmentPod: attachmentReady },
    { phase: 'Scheduling', actions: [] },
  ],
  [
    'Scheduling, hotplug, attachment Pod not ready: stays',
    { migration: at('Scheduling'), targetPod: targetReady, hotplug: true, attachmentPod: attachmentPending },
    { phase: 'Scheduling' },
  ],
  [
    'Scheduling, hotplug, target and attachment Pod ready: Scheduled',
    { migration: at('Scheduling'), targetPod: targetReady, hotplug: true, attachmentPod: attachmentReady },
    { phase: 'Scheduled' },
  ],
  [
    'Scheduling, attachment Pod failed: Failed',
    { migration: at('Scheduling'), targetPod: targetReady, hotplug: true, attachmentPod: attachmentFailed },
    { phase: 'Failed', failure: 'Migration failed because target attachment pod shutdown during migration' },
  ],
];

describe('decideMigration up to the hand-off', () => {
  it.each(rows)('%s', (_name, over, want) => {
    expectRow(over, want);
  });
});
