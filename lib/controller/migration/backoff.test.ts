/** The backoff of evacuation and workload-update migrations after failed ones (kubevirt migration_test.go). */
import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { MigrationPhase } from '../../kubevirt/v1/migration.ts';
import { T0 } from '../../kubevirt/testing/objects.ts';
import { migrationBackoffMs } from './backoff.ts';
import {
  migration,
  migrationDeleting,
  withMigrationAnnotation,
  withMigrationPhase,
} from './testing/migrations.ts';

const EVACUATION = withMigrationAnnotation('kubevirt.io/evacuationMigration', 'node01');
const WORKLOAD = withMigrationAnnotation('kubevirt.io/workloadUpdateMigration', '');
const IGNORE = withMigrationAnnotation('kubevirt.io/func-test-ignore-migration-backoff', '');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/** The migration created at second `created`, failed (when phase says so) at second `created + 1`. */
function mig(
  created: number,
  phase: MigrationPhase | undefined,
  ...opts: Parameters<typeof migration>
): VirtualMachineInstanceMigration {
  return migration(
    (m) => {
      m.metadata.name = `m${String(created)}`;
      m.metadata.uid = `uid-${String(created)}`;
      m.metadata.creationTimestamp = at(created);
      if (phase === 'Failed')
        (m.status ??= {}).phaseTransitionTimestamps = [{ phase, phaseTransitionTimestamp: at(created + 1) }];
    },
    ...(phase === undefined ? [] : [withMigrationPhase(phase)]),
    ...opts,
  );
}

describe('migrationBackoffMs', () => {
  // The migration under test is created at 100 s; "now" is 105 s.
  const NOW = T0 + 105_000;
  it.each<[string, VirtualMachineInstanceMigration[], number]>([
    ['the first evacuation migration', [mig(100, 'Pending', EVACUATION)], 0],
    [
      'after one failed: 20 s from that failure',
      [mig(90, 'Failed', EVACUATION), mig(100, 'Pending', EVACUATION)],
      6_000,
    ],
    [
      'after two failed: 40 s',
      [mig(80, 'Failed', EVACUATION), mig(90, 'Failed', EVACUATION), mig(100, 'Pending', EVACUATION)],
      26_000,
    ],
    [
      'a success ends the count',
      [
        mig(70, 'Failed', EVACUATION),
        mig(80, 'Succeeded', EVACUATION),
        mig(90, 'Failed', EVACUATION),
        mig(100, 'Pending', EVACUATION),
      ],
      6_000,
    ],
    [
      'a failed migration being deleted does not count',
      [
        mig(80, 'Failed', EVACUATION),
        mig(90, 'Failed', EVACUATION, migrationDeleting),
        mig(100, 'Pending', EVACUATION),
      ],
      6_000,
    ],
    ['the failure long past', [mig(10, 'Failed', EVACUATION), mig(100, 'Pending', EVACUATION)], 0],
    [
      'a workload-update migration after a failed evacuation',
      [mig(90, 'Failed', EVACUATION), mig(100, 'Pending', WORKLOAD)],
      6_000,
    ],
    ["a person's migration never waits", [mig(90, 'Failed', EVACUATION), mig(100, 'Pending')], 0],
    ["a person's failed migration does not count", [mig(90, 'Failed'), mig(100, 'Pending', EVACUATION)], 0],
    ['the functests annotation', [mig(90, 'Failed', EVACUATION), mig(100, 'Pending', EVACUATION, IGNORE)], 0],
  ])('%s', (_n, ofVmi, want) => {
    const m = ofVmi.find((x) => x.metadata.name === 'm100');
    if (m === undefined) throw new Error('no m100');
    expect(migrationBackoffMs(m, ofVmi, NOW)).toBe(want);
  });

  it('an older migration than the newest does not back off', () => {
    const older = mig(90, 'Pending', EVACUATION);
    expect(
      migrationBackoffMs(
        older,
        [mig(80, 'Failed', EVACUATION), older, mig(100, 'Pending', EVACUATION)],
        T0 + 95_000,
      ),
    ).toBe(0);
  });
});
