/**
 * Start-failure backoff (KubeVirt's CrashLoopBackOff for VMs, kubevirt vm.go calculateStartBackoffTime,
 * syncStartFailureStatus): a VMI that ends before it ever ran counts as a failed start; the next start waits
 * interval × failures² plus up to half of that at random, at most maxDelay. A VMI that reached Running, or a
 * run strategy that does not restart on its own, clears the count.
 */
import type {
  RunStrategy,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStartFailure,
} from '../../kubevirt/index.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import { parseTime, rfc3339 } from '../../kernel/controller/time.ts';

/** KubeVirt's defaultMaxCrashLoopBackoffDelaySeconds. */
export const MAX_START_BACKOFF_SECONDS = 300;
const MIN_INTERVAL_SECONDS = 10;

/** Seconds to wait before the next start; random() in [0, 1) stands for Go's rand.Intn. */
export function startBackoffSeconds(failCount: number, maxDelay: number, random: () => number): number {
  const count = failCount <= 0 ? 1 : failCount;
  const interval = Math.max(MIN_INTERVAL_SECONDS, Math.floor(maxDelay / 30));
  const base = interval * count * count;
  const jitter = Math.floor(random() * (Math.floor(base / 2) + 1));
  return Math.min(base + jitter, maxDelay);
}

/** Whole seconds until status.startFailure.retryAfterTimestamp (0 when past or unset), as KubeVirt counts them. */
export function startBackoffSecondsLeft(vm: Pick<VirtualMachine, 'status'>, nowMs: number): number {
  const retryAt = parseTime(vm.status?.startFailure?.retryAfterTimestamp);
  if (retryAt === undefined) return 0;
  return Math.max(0, Math.floor(retryAt / 1000) - Math.floor(nowMs / 1000));
}

function wasVmiRunning(vmi: VirtualMachineInstance | undefined): boolean {
  return vmi?.status?.phaseTransitionTimestamps?.some((t) => t.phase === 'Running') ?? false;
}

/** Final without ever having been Running. */
function vmiFailedEarly(vmi: VirtualMachineInstance | undefined): boolean {
  return vmi !== undefined && isFinal(vmi) && !wasVmiRunning(vmi);
}

const RESTARTING: readonly RunStrategy[] = ['Always', 'RerunOnFailure', 'Once'];

export interface StartFailureInput {
  current: VirtualMachineStartFailure | null | undefined;
  vmi: VirtualMachineInstance | undefined;
  runStrategy: RunStrategy;
  nowMs: number;
  random: () => number;
  maxDelaySeconds?: number;
}

/** The next status.startFailure: undefined clears it; the current value is returned when nothing changes. */
export function nextStartFailure(input: StartFailureInput): VirtualMachineStartFailure | undefined {
  const { current, vmi } = input;
  if (wasVmiRunning(vmi) || !RESTARTING.includes(input.runStrategy)) return undefined;
  if (vmi === undefined || !vmiFailedEarly(vmi)) return current ?? undefined;
  const uid = vmi.metadata.uid ?? '';
  if (current?.lastFailedVMIUID === uid) return current;
  const count = (current?.consecutiveFailCount ?? 0) + 1;
  const delay = startBackoffSeconds(count, input.maxDelaySeconds ?? MAX_START_BACKOFF_SECONDS, input.random);
  return {
    consecutiveFailCount: count,
    lastFailedVMIUID: uid,
    retryAfterTimestamp: rfc3339(input.nowMs + delay * 1000),
  };
}
