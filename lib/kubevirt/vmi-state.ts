/** KubeVirt's readings of a VMI's phase (kubevirt api/core/v1 VirtualMachineInstance Is* methods). */
import type { VirtualMachineInstance } from './index.ts';
import { parseTime } from '../kernel/controller/time.ts';

type Vmi = Pick<VirtualMachineInstance, 'status' | 'metadata'>;

const phaseOf = (vmi: Vmi): string => vmi.status?.phase ?? '';

/** No phase yet, or Pending: the controller has not handed it on. */
export const isUnprocessed = (vmi: Vmi): boolean => phaseOf(vmi) === '' || phaseOf(vmi) === 'Pending';
export const isScheduling = (vmi: Vmi): boolean => phaseOf(vmi) === 'Scheduling';
export const isScheduled = (vmi: Vmi): boolean => phaseOf(vmi) === 'Scheduled';
export const isRunning = (vmi: Vmi): boolean => phaseOf(vmi) === 'Running';
export const isWaitingForSync = (vmi: Vmi): boolean => phaseOf(vmi) === 'WaitingForSync';
export const isFinal = (vmi: Vmi): boolean => phaseOf(vmi) === 'Succeeded' || phaseOf(vmi) === 'Failed';

/** A migration has started and not ended, as of nowMs (kubevirt pkg/util/migrations IsMigrating). */
export function isMigrating(vmi: Vmi, nowMs: number): boolean {
  const state = vmi.status?.migrationState;
  const start = parseTime(state?.startTimestamp);
  const end = parseTime(state?.endTimestamp);
  if (start === undefined || nowMs < start) return false;
  return end === undefined || nowMs < end;
}

/** vCPUs of a CPU spec: the product of the topology fields that are set (0 when none is). */
export function vcpusOf(cpu: { cores?: number; sockets?: number; threads?: number } | undefined): number {
  let n = 0;
  for (const v of [cpu?.cores, cpu?.sockets, cpu?.threads]) {
    if (v === undefined || v === 0) continue;
    n = n === 0 ? v : n * v;
  }
  return n;
}
