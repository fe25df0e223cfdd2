/**
 * Inputs for the decideMigration tables: target Pods pending, unschedulable, running and failed, a running VMI
 * on node1, a migration at a phase, and the table row's shape (each listed field compared whole).
 */
import { expect } from '@jest/globals';
import type { Pod } from '../../../kubevirt/core/pod.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../../kubevirt/index.ts';
import type { MigrationPhase } from '../../../kubevirt/v1/migration.ts';
import {
  pod,
  podReady,
  T0,
  vmi,
  withPhase,
  withPodCondition,
  withPodPhase,
  type Option,
} from '../../../kubevirt/testing/objects.ts';
import type { MigrationDecision, MigrationInput } from '../decision.ts';
import { decideMigration } from '../phase.ts';
import { migration, onVmiNode, withMigrationPhase } from './migrations.ts';

export const TARGET = 'virt-launcher-testvm-target';
export const CREATED = T0 + 1000;
export const named: Option<Pod> = (p) => {
  p.metadata.name = TARGET;
  p.metadata.creationTimestamp = new Date(CREATED).toISOString();
};
export const targetPending = pod(named);
export const unschedulable = pod(
  named,
  withPodCondition({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }),
);
export const targetReady = pod(named, podReady('node2'));
export const targetFailed = pod(named, podReady('node2'), withPodPhase('Failed'));
const attachment: Option<Pod> = (p) => {
  p.metadata.name = 'hp-volume-target';
};
export const attachmentPending = pod(attachment);
export const attachmentReady = pod(attachment, podReady('node2'));
export const attachmentFailed = pod(attachment, podReady('node2'), withPodPhase('Failed'));
export const running = (...opts: Option<VirtualMachineInstance>[]): VirtualMachineInstance =>
  vmi(withPhase('Running', 'Scheduled'), onVmiNode('node1'), ...opts);
export const started = {
  targetNode: 'node2',
  targetNodeAddress: '10.0.0.2',
  startTimestamp: '2026-01-01T00:00:05Z',
};

export const input = (over: Partial<MigrationInput>): MigrationInput => ({
  migration: migration(),
  vmi: running(),
  targetPod: undefined,
  sourcePod: pod(podReady('node1')),
  hotplug: false,
  attachmentPod: undefined,
  limits: { running: 0, outboundFromNode: 0 },
  otherMigrationActive: false,
  nowMs: CREATED + 10_000,
  ...over,
});
/** A migration at a phase. */
export const at = (
  phase: MigrationPhase,
  ...opts: Option<VirtualMachineInstanceMigration>[]
): VirtualMachineInstanceMigration => migration(withMigrationPhase(phase), ...opts);

export const CANCELED = 'Migration failed due to being canceled';
export const REMOVED = 'Migration target pod was removed during active migration.';
export const POD_DOWN = 'Migration failed because target pod shutdown during migration';
export const QUOTA = 'migrationRejectedByResourceQuota';
export const ABORT = 'migrationAbortRequested';

/** The decision's fields a row checks, each compared whole (undefined: must be absent). */
export type Want = { [K in keyof MigrationDecision]?: MigrationDecision[K] | undefined };
export type Row = [string, Partial<MigrationInput>, Want];

/** Runs one row: the decision's fields the row lists, compared whole. */
export function expectRow(over: Partial<MigrationInput>, want: Want): void {
  const d = decideMigration(input(over));
  const got = Object.fromEntries(Object.keys(want).map((k) => [k, d[k as keyof MigrationDecision]]));
  expect(got).toEqual(want);
}
