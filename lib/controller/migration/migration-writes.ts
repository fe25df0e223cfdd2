/**
 * The migration object a pass wants (kubevirt migration.go execute and updateStatus, tag v1.6.2): the
 * kubevirt.io/vmi-name selector label and the kubevirt.io/migrationJobFinalize finalizer on a migration that
 * is not final (KubeVirt's create mutator adds the finalizer; no mutator runs for migrations here, so the
 * controller does), the finalizer removed once final; the status decideMigration leads to: phase and its
 * transition time, conditions, the source Pod while Pending, and the VMI's migrationState once final.
 */
import { FINALIZERS, LABELS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { addFinalizer, removeFinalizer } from '../../kernel/controller/finalizers.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import type { MigrationDecision } from './decision.ts';

type Migration = VirtualMachineInstanceMigration;
type MigrationStatus = NonNullable<Migration['status']>;

const isFinal = (m: Migration): boolean => m.status?.phase === 'Succeeded' || m.status?.phase === 'Failed';

/** The metadata the migration should carry: its selector label and, while it runs, the finalizer. */
export function migrationMetadata(m: Migration): Pick<Migration['metadata'], 'labels' | 'finalizers'> {
  const labels = { ...m.metadata.labels, [LABELS.MIGRATION_SELECTOR]: m.spec.vmiName ?? '' };
  const finalizers =
    isFinal(m) || m.metadata.deletionTimestamp !== undefined
      ? m.metadata.finalizers
      : addFinalizer(m.metadata.finalizers, FINALIZERS.MIGRATION);
  return { labels, ...(finalizers !== undefined && { finalizers }) };
}

/** The finalizer list without the migration finalizer, once the migration is final or its VMI is gone. */
export const releasedFinalizers = (m: Migration): string[] =>
  removeFinalizer(m.metadata.finalizers, FINALIZERS.MIGRATION);

export interface StatusInput {
  migration: Migration;
  decision: MigrationDecision;
  vmi: VirtualMachineInstance;
  /** The VMI's current launcher Pod's name, recorded while Pending (SetSourcePod). */
  sourcePod: string | undefined;
  nowMs: number;
}

function withPhase(status: MigrationStatus, phase: MigrationDecision['phase'], now: string): void {
  if (phase === undefined || phase === status.phase) return;
  status.phase = phase;
  status.phaseTransitionTimestamps = [
    ...(status.phaseTransitionTimestamps ?? []),
    { phase, phaseTransitionTimestamp: now },
  ];
}

function withConditions(status: MigrationStatus, d: MigrationDecision, now: string): void {
  const removed: readonly string[] = d.removeConditions;
  let conds = (status.conditions ?? []).filter((c) => !removed.includes(c.type));
  for (const type of d.addConditions) {
    if (!conds.some((c) => c.type === type)) conds = [...conds, { type, status: 'True', lastProbeTime: now }];
  }
  if (conds.length > 0 || status.conditions !== undefined) status.conditions = conds;
}

export function migrationStatus({
  migration,
  decision,
  vmi,
  sourcePod,
  nowMs,
}: StatusInput): MigrationStatus {
  const now = rfc3339(nowMs);
  const status: MigrationStatus = structuredClone(migration.status ?? {});
  withPhase(status, decision.phase, now);
  withConditions(status, decision, now);
  if (status.phase === 'Pending' && sourcePod !== undefined) {
    status.migrationState = { ...status.migrationState, sourcePod };
  }
  const fin = decision.actions.find((a) => a.kind === 'finalize');
  const state = vmi.status?.migrationState;
  if (fin?.kind === 'finalize' && fin.copyMigrationState && state !== undefined)
    status.migrationState = structuredClone(state);
  return status;
}
