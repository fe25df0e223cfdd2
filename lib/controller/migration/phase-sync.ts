/**
 * The acting half of a migration pass (kubevirt migration.go sync and handleTargetPodCreation, tag v1.6.2): by
 * the migration's current phase, create the target Pod within the cluster's parallel limits (after the backoff of
 * an evacuation or workload-update migration that follows failed ones), then, once it is ready, the attachment
 * Pod of a VMI's hotplugged volumes on its node (createAttachmentPod), delete the target Pod when the
 * migration is cancelled before the hand-off or it waited too long in Pending, hand the migration to the
 * handlers once it runs, mark the abort on the VMI, and fail the VMI's migrationState when the target went
 * before the source started.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { MigrationPhase } from '../../kubevirt/v1/migration.ts';
import { isPodDown, isPodReady } from '../../kubevirt/core/pod.ts';
import { isRunning } from '../../kubevirt/vmi-state.ts';
import { pendingTimeout } from './pending-timeout.ts';
import { ownsState, type MigrationDecision, type MigrationInput } from './decision.ts';

const DEFAULT_PARALLEL_PER_CLUSTER = 5;
const DEFAULT_PARALLEL_OUTBOUND_PER_NODE = 2;
/** A migration held back by a parallel limit looks again after this long. */
const LIMIT_RETRY_MS = 5000;

function requeue(d: MigrationDecision, ms: number): void {
  d.requeueAfterMs = Math.min(d.requeueAfterMs ?? Infinity, ms);
}

/** Delete the target Pod of a migration cancelled before the hand-off (handlePreHandoffMigrationCancel). */
function cancelTarget(input: MigrationInput, d: MigrationDecision): void {
  const pod = input.targetPod;
  if (pod === undefined) return;
  const ref = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  d.actions.push({ kind: 'deleteTargetPod', message: `migration canceled and pod ${ref} is deleted` });
}

function checkTimeout(input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision): void {
  if (input.targetPod === undefined) return;
  const t = pendingTimeout(input.migration, input.targetPod, input.nowMs);
  if (t.kind === 'none') return;
  if (t.unschedulable) {
    const { namespace = '', name = '' } = vmi.metadata;
    d.warning = `Migration target pod for VMI [${namespace}/${name}] is currently unschedulable.`;
  }
  if (t.kind === 'delete') d.actions.push({ kind: 'deleteTargetPod', message: t.message });
  else requeue(d, t.afterMs);
}

/** No target Pod yet: create one when the source Pod exists, the limits allow and the VMI runs. */
function createTarget(input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision): void {
  if (input.sourcePod === undefined) return;
  const { limits } = input;
  if (limits.running >= (limits.parallelMigrationsPerCluster ?? DEFAULT_PARALLEL_PER_CLUSTER)) {
    requeue(d, LIMIT_RETRY_MS);
    return;
  }
  if (
    limits.outboundFromNode >=
    (limits.parallelOutboundMigrationsPerNode ?? DEFAULT_PARALLEL_OUTBOUND_PER_NODE)
  ) {
    requeue(d, LIMIT_RETRY_MS);
    return;
  }
  if (isRunning(vmi)) d.actions.push({ kind: 'createTargetPod' });
}

function pending(input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision): void {
  const pod = input.targetPod;
  const backoff = input.backoffMs ?? 0;
  if (input.migration.metadata.deletionTimestamp !== undefined) cancelTarget(input, d);
  else if (backoff > 0) {
    d.backoff = `backoff migrating vmi ${vmi.metadata.namespace ?? ''}/${vmi.metadata.name ?? ''}`;
    requeue(d, backoff);
  } else if (pod === undefined) createTarget(input, vmi, d);
  else if (!isPodReady(pod)) checkTimeout(input, vmi, d);
  else if (input.hotplug && input.attachmentPod === undefined)
    d.actions.push({ kind: 'createAttachmentPod' });
}

/** The target went (or never came) before the source started: the VMI's migration ends failed. */
function targetLostBeforeStart(input: MigrationInput, vmi: VirtualMachineInstance): boolean {
  const pod = input.targetPod;
  const state = vmi.status?.migrationState;
  if (state === undefined || (pod !== undefined && !isPodDown(pod))) return false;
  return (
    Object.keys(state.targetDirectMigrationNodePorts ?? {}).length === 0 &&
    (state.startTimestamp ?? null) === null &&
    state.failed !== true &&
    state.completed !== true
  );
}

type Act = (input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision) => void;
const cancelled = (input: MigrationInput): boolean =>
  input.migration.metadata.deletionTimestamp !== undefined;

const failIfTargetLost: Act = (input, vmi, d) => {
  if (targetLostBeforeStart(input, vmi)) d.actions.push({ kind: 'failOnVmi' });
};

/** What sync does in each phase. */
const ACTS: Partial<Record<MigrationPhase, Act>> = {
  Pending: pending,
  Scheduling: (input, vmi, d) => {
    if (cancelled(input)) cancelTarget(input, d);
    else checkTimeout(input, vmi, d);
  },
  Scheduled: (input, vmi, d) => {
    const handedOff = ownsState(vmi, input.migration);
    const pod = input.targetPod;
    if (cancelled(input) && !handedOff) cancelTarget(input, d);
    else if (pod !== undefined && isPodReady(pod) && !handedOff) d.actions.push({ kind: 'handOff' });
  },
  PreparingTarget: failIfTargetLost,
  TargetReady: failIfTargetLost,
  Failed: failIfTargetLost,
  Running: (input, vmi, d) => {
    const state = vmi.status?.migrationState;
    if (cancelled(input) && state !== undefined && state.abortRequested !== true)
      d.actions.push({ kind: 'abortOnVmi' });
  },
};

/** The actions of one pass (none for a VMI being deleted or whose migrationState says this one completed). */
export function syncActions(input: MigrationInput, vmi: VirtualMachineInstance, d: MigrationDecision): void {
  if (vmi.metadata.deletionTimestamp !== undefined) return;
  if (ownsState(vmi, input.migration) && vmi.status?.migrationState?.completed === true) return;
  if (input.otherMigrationActive) {
    d.syncError = 'vmi is ineligible for migration because another migration job is running';
    return;
  }
  const phase = input.migration.status?.phase;
  if (phase !== undefined) ACTS[phase]?.(input, vmi, d);
}
