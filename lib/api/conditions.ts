/**
 * KubeVirt's condition managers (kubevirt pkg/controller/conditions.go): a condition is replaced only when its
 * status or reason changes, so fresh probe times alone never cause a write.
 */
import type { Condition } from './v1/common.ts';

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
