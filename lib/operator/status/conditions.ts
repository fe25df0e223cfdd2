/**
 * The KubeVirt resource's conditions as a plan of changes applied to the current list (KubeVirt's
 * util/client.go updateCondition, removeCondition and SetConditionTimestamps): a condition set to what it
 * already says is kept as it is, timestamps included, so an unchanged status stays deep-equal; a changed one
 * gets lastProbeTime now, and lastTransitionTime now only when its status changed; a new one is appended with
 * both. Pure.
 */
import type { KubeVirtConditionType, KubeVirtStatus } from '../../kubevirt/v1/kubevirt.ts';

type Condition = NonNullable<KubeVirtStatus['conditions']>[number];

export interface ConditionSpec {
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

/** Per type: the condition it should say, or null to remove it; a type left out keeps its condition. */
export type ConditionPlan = Partial<Record<KubeVirtConditionType, ConditionSpec | null>>;

function stamped(type: string, spec: ConditionSpec, old: Condition | undefined, now: string): Condition {
  if (old?.status === spec.status && old.reason === spec.reason && old.message === spec.message) return old;
  const transition = old?.status === spec.status ? old.lastTransitionTime : now;
  return { type, ...spec, lastProbeTime: now, lastTransitionTime: transition ?? now };
}

export function applyConditions(
  current: readonly Condition[] | undefined,
  plan: ConditionPlan,
  now: string,
): Condition[] {
  const planned = (type: string): ConditionSpec | null | undefined => plan[type as KubeVirtConditionType];
  const kept = (current ?? []).flatMap((c) => {
    const spec = planned(c.type);
    if (spec === null) return [];
    return [spec === undefined ? c : stamped(c.type, spec, c, now)];
  });
  const added = Object.entries(plan).flatMap(([type, spec]) =>
    spec === null || kept.some((c) => c.type === type) ? [] : [stamped(type, spec, undefined, now)],
  );
  return [...kept, ...added];
}
