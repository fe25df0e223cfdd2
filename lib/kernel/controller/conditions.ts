/**
 * Pure helpers over Kubernetes-style status conditions. Nothing here mutates its input: every
 * change returns a new array; time comes in as an RFC 3339 string.
 */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
}

type Conditions<C> = readonly C[] | undefined;

export function getCondition<C extends Condition>(conds: Conditions<C>, type: string): C | undefined {
  return conds?.find((c) => c.type === type);
}

export function hasConditionStatus(
  conds: Conditions<Condition>,
  type: string,
  status: ConditionStatus,
): boolean {
  return getCondition(conds, type)?.status === status;
}

/**
 * Adds or replaces the condition of cond.type, in place in the order. lastTransitionTime is kept when the
 * status does not change; otherwise it is cond.lastTransitionTime or now.
 */
export function setCondition<C extends Condition>(conds: Conditions<C>, cond: C, now: string): C[] {
  const list = conds ?? [];
  const existing = getCondition(list, cond.type);
  const kept = existing?.status === cond.status ? existing.lastTransitionTime : undefined;
  const next: C = { ...cond, lastTransitionTime: kept ?? cond.lastTransitionTime ?? now };
  if (!existing) return [...list, next];
  return list.map((c) => (c === existing ? next : c));
}

export function removeCondition<C extends Condition>(conds: Conditions<C>, type: string): C[] {
  return (conds ?? []).filter((c) => c.type !== type);
}

function sameCondition(a: Condition, b: Condition): boolean {
  return (
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    (a.lastTransitionTime ?? '') === (b.lastTransitionTime ?? '')
  );
}

/**
 * Whether two condition lists say the same thing: same types, each with the same status, reason, message
 * and lastTransitionTime. Order and lastProbeTime are ignored; an absent string equals ''.
 */
export function conditionsEqual(a: Conditions<Condition>, b: Conditions<Condition>): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && covers(left, right) && covers(right, left);
}

function covers(from: readonly Condition[], to: readonly Condition[]): boolean {
  return from.every((c) => {
    const other = getCondition(to, c.type);
    return other !== undefined && sameCondition(c, other);
  });
}
