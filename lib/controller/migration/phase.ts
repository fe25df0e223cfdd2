/**
 * One pass of the migration controller as a pure function (kubevirt migration.go execute, sync, updateStatus and
 * processMigrationPhase, tag v1.6.2): from the migration, its VMI, the target and source Pods, the cluster's
 * parallel limits and the time, the actions on the objects (sync) and the migration's next phase (status).
 * Pending → Scheduling (target Pod exists) → Scheduled (it runs) → PreparingTarget (the VMI names the target
 * node) → TargetReady (and its address) → Running (the source started) → Succeeded (the VMI reports completion);
 * Failed on the first failure rule that matches, checked before any phase step. A VMI with hotplugged volumes
 * leaves Pending and Scheduling only once the target's attachment Pod is ready too.
 *
 * Left to the caller (state that is not the objects'): the Pod expectations and the "creations pending"/"VMI
 * has two active Pods" gates in front of createTargetPod, and the hand-off map that covers cache lag after a
 * hand-off; the backoff of evacuation migrations comes in computed (backoff.ts). Not modelled: decentralized
 * (cross-cluster) migrations (WaitingForSync, Synchronizing), backend-storage PVC hand-over.
 * A VMI that is final, not LiveMigratable or already migrating is refused when the migration is created
 * (KubeVirt's migration-create admitter), so here it only waits (not Running) or fails by the rules below.
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { MigrationConditionType, MigrationPhase } from '../../kubevirt/v1/migration.ts';
import { isPodDown, isPodReady, type Pod } from '../../kubevirt/core/pod.ts';
import { hasConditionStatus } from '../../kubevirt/conditions.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import { ownsState, type MigrationAction, type MigrationDecision, type MigrationInput } from './decision.ts';
import { syncActions } from './phase-sync.ts';

const phaseOf = (m: VirtualMachineInstanceMigration): MigrationPhase | undefined => m.status?.phase;
const isMigrationFinal = (m: VirtualMachineInstanceMigration): boolean =>
  phaseOf(m) === 'Succeeded' || phaseOf(m) === 'Failed';
/** Past Pending: a target Pod must exist (TargetIsCreated). */
const targetIsCreated = (m: VirtualMachineInstanceMigration): boolean =>
  phaseOf(m) !== undefined && phaseOf(m) !== 'Pending';
/** Past Scheduled: the VMI's handlers own it (TargetIsHandedOff). */
const targetIsHandedOff = (m: VirtualMachineInstanceMigration): boolean =>
  targetIsCreated(m) && phaseOf(m) !== 'Scheduling' && phaseOf(m) !== 'Scheduled';

const hasCondition = (m: VirtualMachineInstanceMigration, type: MigrationConditionType): boolean =>
  (m.status?.conditions ?? []).some((c) => c.type === type);

const CANCELED = 'Migration failed due to being canceled';

interface Seen {
  m: VirtualMachineInstanceMigration;
  vmi: VirtualMachineInstance;
  pod: Pod | undefined;
  attachmentPod: Pod | undefined;
}

interface Rule {
  when: (s: Seen) => boolean;
  message: string;
}

/** KubeVirt's failure rules in updateStatus order, each with its event message; the first match wins. */
const FAILURES: readonly Rule[] = [
  { when: ({ vmi }) => isFinal(vmi), message: 'Migration failed vmi shutdown during migration.' },
  {
    when: ({ m, vmi }) => m.metadata.deletionTimestamp !== undefined && !ownsState(vmi, m),
    message: CANCELED,
  },
  {
    when: ({ pod }) => pod !== undefined && isPodDown(pod),
    message: 'Migration failed because target pod shutdown during migration',
  },
  {
    when: ({ attachmentPod }) => attachmentPod !== undefined && isPodDown(attachmentPod),
    message: 'Migration failed because target attachment pod shutdown during migration',
  },
  {
    when: ({ m, pod }) => targetIsCreated(m) && pod === undefined,
    message: 'Migration target pod was removed during active migration.',
  },
  {
    when: ({ m, vmi }) => targetIsHandedOff(m) && vmi.status?.migrationState === undefined,
    message: "VMI's migration state was cleared during the active migration.",
  },
  {
    when: ({ m, vmi }) => targetIsHandedOff(m) && !ownsState(vmi, m),
    message: "VMI's migration state was taken over by another migration job during active migration.",
  },
  {
    when: ({ m, vmi }) => ownsState(vmi, m) && vmi.status?.migrationState?.failed === true,
    message: 'source node reported migration failed',
  },
];

function failureOf(input: MigrationInput, vmi: VirtualMachineInstance): string | undefined {
  const seen = { m: input.migration, vmi, pod: input.targetPod, attachmentPod: input.attachmentPod };
  return FAILURES.find((r) => r.when(seen))?.message;
}

/** The migration may complete: the VMI reports it and waits for no CPU, memory or further migration change. */
function succeeded(vmi: VirtualMachineInstance): boolean {
  const conds = vmi.status?.conditions;
  return (
    vmi.status?.migrationState?.completed === true &&
    !(conds ?? []).some((c) => c.type === 'HotVCPUChange') &&
    !hasConditionStatus(conds, 'HotMemoryChange', 'True') &&
    !hasConditionStatus(conds, 'MigrationRequired', 'True')
  );
}

function targetReadyMark(input: MigrationInput, vmi: VirtualMachineInstance): MigrationAction[] {
  const ready = vmi.status?.migrationState?.targetNodeDomainReadyTimestamp;
  const pod = input.targetPod;
  if (pod === undefined || ready === undefined || ready === null) return [];
  if (pod.metadata.annotations?.['kubevirt.io/migration-target-ready-timestamp'] !== undefined) return [];
  return [{ kind: 'markTargetReady', timestamp: ready }];
}

type Step = (input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision) => void;
const QUOTA: MigrationConditionType = 'migrationRejectedByResourceQuota';
const set = (v: string | null | undefined): boolean => v !== undefined && v !== null && v !== '';
/** The target's hotplugged volumes are attached: none are, or its attachment Pod is ready. */
const attached = (input: MigrationInput): boolean =>
  !input.hotplug || (input.attachmentPod !== undefined && isPodReady(input.attachmentPod));

/** processMigrationPhase: each phase's step forward, taken when its condition holds. */
const STEPS: Partial<Record<MigrationPhase | 'unset', Step>> = {
  unset: (input, _vmi, d) => {
    if (!input.otherMigrationActive) d.phase = 'Pending';
    else fail(d, 'VMI is not eligible for migration because another migration job is in progress.');
  },
  Pending: (input, _vmi, d) => {
    if (input.targetPod !== undefined) {
      if (attached(input)) d.phase = 'Scheduling';
    } else if (
      input.createError?.includes('exceeded quota') === true &&
      !hasCondition(input.migration, QUOTA)
    )
      d.addConditions.push(QUOTA);
  },
  Scheduling: (input, _vmi, d) => {
    if (hasCondition(input.migration, QUOTA)) d.removeConditions.push(QUOTA);
    if (input.targetPod !== undefined && isPodReady(input.targetPod) && attached(input))
      d.phase = 'Scheduled';
  },
  Scheduled: (input, vmi, d) => {
    if (ownsState(vmi, input.migration) && set(vmi.status?.migrationState?.targetNode))
      d.phase = 'PreparingTarget';
  },
  PreparingTarget: (_input, vmi, d) => {
    const state = vmi.status?.migrationState;
    if (set(state?.targetNode) && set(state?.targetNodeAddress)) d.phase = 'TargetReady';
  },
  TargetReady: (_input, vmi, d) => {
    if (set(vmi.status?.migrationState?.startTimestamp)) d.phase = 'Running';
  },
  Running: (input, vmi, d) => {
    d.actions.push(...targetReadyMark(input, vmi));
    if (succeeded(vmi)) {
      d.phase = 'Succeeded';
      d.event = 'Source node reported migration succeeded';
    }
  },
};

function fail(d: MigrationDecision, message: string): void {
  d.phase = 'Failed';
  d.failure = message;
}

/**
 * updateStatus: the failure rules first (a cancel before the hand-off also asks for the abort), then a cancel's
 * condition, then one phase step.
 */
function status(input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision): void {
  const m = input.migration;
  if (isMigrationFinal(m)) {
    d.actions.push({ kind: 'finalize', copyMigrationState: ownsState(vmi, m) });
    return;
  }
  const failure = failureOf(input, vmi);
  const askAbort = m.metadata.deletionTimestamp !== undefined && !hasCondition(m, 'migrationAbortRequested');
  if (failure !== undefined) {
    if (failure === CANCELED && askAbort) d.addConditions.push('migrationAbortRequested');
    fail(d, failure);
  } else if (askAbort) d.addConditions.push('migrationAbortRequested');
  else STEPS[phaseOf(m) ?? 'unset']?.(input, vmi, d);
}

/** The decision for one pass over a migration. */
export function decideMigration(input: MigrationInput): MigrationDecision {
  const m = input.migration;
  const d: MigrationDecision = { phase: phaseOf(m), actions: [], addConditions: [], removeConditions: [] };
  const vmi = input.vmi;
  if (vmi === undefined) {
    if (m.metadata.deletionTimestamp === undefined) d.actions.push({ kind: 'deleteMigration' });
    return d;
  }
  syncActions(input, vmi, d);
  status(input, vmi, d);
  return d;
}
