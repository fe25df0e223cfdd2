/**
 * KubeVirt's condition managers (kubevirt pkg/controller/conditions.go): a condition is replaced only when its
 * status or reason changes, so fresh probe times alone never cause a write.
 */
import type { Condition } from './v1/common.ts';
import type { VirtualMachineInstance } from './v1/objects.ts';

type Cond = Condition<string>;

/** Why a sync could not do its work: the reason and message of a Failure/Synchronized condition and its event. */
export interface SyncFailure {
  reason: string;
  message: string;
}

export function findCondition<C extends Cond>(conds: readonly C[] | undefined, type: string): C | undefined {
  return conds?.find((c) => c.type === type);
}

export function hasConditionStatus(
  conds: readonly Cond[] | undefined,
  type: string,
  status: Cond['status'],
  reason?: string,
): boolean {
  const c = findCondition(conds, type);
  return c !== undefined && c.status === status && (reason === undefined || c.reason === reason);
}

/** Adds cond, or replaces the condition of its type when status or reason differ (a new array either way). */
export function upsertCondition<C extends Cond>(conds: readonly C[] | undefined, cond: C): C[] {
  const list = conds ?? [];
  const i = list.findIndex((c) => c.type === cond.type);
  if (i < 0) return [...list, cond];
  const cur = list[i] as C;
  if (cur.status === cond.status && cur.reason === cond.reason) return [...list];
  return list.map((c, j) => (j === i ? cond : c));
}

export function withoutCondition<C extends Cond>(conds: readonly C[] | undefined, type: string): C[] {
  return (conds ?? []).filter((c) => c.type !== type);
}

type VmiStatusHolder = Pick<VirtualMachineInstance, 'status'>;

/**
 * The Synchronized condition for a sync's outcome (kubevirt controller.go CheckFailure): False with the failure's
 * reason and message, replaced only when the reason changes; removed once a sync succeeds.
 */
export function withSyncFailure(out: VmiStatusHolder, failure: SyncFailure | undefined, now: string): void {
  const status = (out.status ??= {});
  const cur = findCondition(status.conditions, 'Synchronized');
  if (failure === undefined) {
    if (cur !== undefined) status.conditions = withoutCondition(status.conditions, 'Synchronized');
    return;
  }
  if (cur?.status === 'False' && cur.reason === failure.reason) return;
  status.conditions = [
    ...withoutCondition(status.conditions, 'Synchronized'),
    {
      type: 'Synchronized',
      status: 'False',
      reason: failure.reason,
      message: failure.message,
      lastTransitionTime: now,
    },
  ];
}

/** Appends the new phase to phaseTransitionTimestamps when it changed (kubevirt SetVMIPhaseTransitionTimestamp). */
export function withPhaseTransition(before: VmiStatusHolder, out: VmiStatusHolder, now: string): void {
  const status = (out.status ??= {});
  const phase = status.phase;
  if (phase === undefined || phase === before.status?.phase) return;
  if (status.phaseTransitionTimestamps?.some((t) => t.phase === phase) === true) return;
  status.phaseTransitionTimestamps = [
    ...(status.phaseTransitionTimestamps ?? []),
    { phase, phaseTransitionTimestamp: now },
  ];
}
