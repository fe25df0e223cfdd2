/**
 * When a migration's target Pod has waited too long in Pending (kubevirt migration.go handlePendingPodTimeout,
 * tag v1.6.2): an unschedulable Pod goes after 5 minutes, any pending Pod after 15, each overridable per
 * migration by an annotation; a Pod that is not Pending, already deleting or without a creation time is left.
 */
import type { VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { podCondition, type Pod } from '../../kubevirt/core/pod.ts';
import { parseTime } from '../../kernel/controller/time.ts';

const UNSCHEDULABLE_TIMEOUT_ANNOTATION = 'kubevirt.io/migrationUnschedulablePodTimeoutSeconds';
const PENDING_TIMEOUT_ANNOTATION = 'kubevirt.io/migrationPendingPodTimeoutSeconds';
const DEFAULT_UNSCHEDULABLE_TIMEOUT_SECONDS = 5 * 60;
const DEFAULT_PENDING_TIMEOUT_SECONDS = 15 * 60;

export type PendingTimeout =
  | { kind: 'delete'; message: string; unschedulable: boolean }
  | { kind: 'wait'; afterMs: number; unschedulable: boolean }
  | { kind: 'none' };

/** The annotation's whole seconds, else the default (an unparsable value keeps the default, as Atoi fails). */
function timeoutSeconds(m: VirtualMachineInstanceMigration, annotation: string, fallback: number): number {
  const raw = m.metadata.annotations?.[annotation];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return fallback;
  return Number(raw);
}

function isUnschedulable(pod: Pod): boolean {
  const c = podCondition(pod, 'PodScheduled');
  return c?.status === 'False' && c.reason === 'Unschedulable';
}

/** What to do about a target Pod that has not started yet, at nowMs. */
export function pendingTimeout(m: VirtualMachineInstanceMigration, pod: Pod, nowMs: number): PendingTimeout {
  const created = parseTime(pod.metadata.creationTimestamp);
  if (
    pod.status?.phase !== 'Pending' ||
    pod.metadata.deletionTimestamp !== undefined ||
    created === undefined
  ) {
    return { kind: 'none' };
  }
  const waited = Math.max(0, Math.floor(nowMs / 1000) - Math.floor(created / 1000));
  const ref = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  const unschedulable = isUnschedulable(pod);
  let next = Infinity;
  if (unschedulable) {
    const limit = timeoutSeconds(m, UNSCHEDULABLE_TIMEOUT_ANNOTATION, DEFAULT_UNSCHEDULABLE_TIMEOUT_SECONDS);
    if (waited >= limit)
      return { kind: 'delete', message: `unschedulable pod ${ref} timeout period exceeded`, unschedulable };
    next = limit - waited;
  }
  const limit = timeoutSeconds(m, PENDING_TIMEOUT_ANNOTATION, DEFAULT_PENDING_TIMEOUT_SECONDS);
  if (waited >= limit)
    return { kind: 'delete', message: `pending pod ${ref} timeout period exceeded`, unschedulable };
  return { kind: 'wait', afterMs: Math.min(next, limit - waited) * 1000, unschedulable };
}
