/**
 * The VM status one sync leads to (kubevirt vm.go updateStatus): created/ready, the run strategy acted on, done
 * volume, resource claim (Deckhouse fork) and state-change requests dropped, start failures counted, conditions
 * (Ready copied from the VMI, Failure from the sync, RestartRequired from live-update.ts, the VMI's other
 * conditions mirrored) and printableStatus.
 * Pure: the caller writes only when the result differs from the current status.
 */
import { runStrategyOf } from '../../kubevirt/index.ts';
import type {
  RunStrategy,
  VirtualMachine,
  VirtualMachineCondition,
  VirtualMachineInstance,
  VirtualMachineStatus,
} from '../../kubevirt/index.ts';
import { findCondition, upsertCondition, withoutCondition } from '../../kubevirt/conditions.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import { nextStartFailure } from './backoff.ts';
import { printableStatus, type VolumeFacts } from './printable-status.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import { isFirstStateChangeDone } from './state-change.ts';
import { pendingResourceClaimRequests } from './resource-claim-requests.ts';
import { pendingVolumeRequests } from './volume-requests.ts';

export interface VmStatusInput {
  /** The VM as the sync found it (its status is the starting point). */
  vm: VirtualMachine;
  vmi: VirtualMachineInstance | undefined;
  failure: SyncFailure | undefined;
  startExpected: boolean;
  stopExpected: boolean;
  nowMs: number;
  /** Jitter of the start-failure backoff, in [0, 1). */
  random: () => number;
  volumes?: VolumeFacts;
  /** Why a template change needs a restart (live-update.ts); the condition goes once no VMI runs. */
  restartRequired?: string;
}

/** VMI conditions KubeVirt does not mirror generically. */
const NOT_MIRRORED = new Set(['Ready', 'Failure', 'RestartRequired']);

function strategyOf(vm: VirtualMachine): RunStrategy | undefined {
  try {
    return runStrategyOf(vm);
  } catch {
    return undefined;
  }
}

function readyCondition(vmi: VirtualMachineInstance | undefined, now: string): VirtualMachineCondition {
  const base = { type: 'Ready', status: 'False' as const, lastProbeTime: now, lastTransitionTime: now };
  if (vmi === undefined) return { ...base, reason: 'VMINotExists', message: 'VMI does not exist' };
  const c = findCondition(vmi.status?.conditions, 'Ready');
  if (c === undefined) {
    return { ...base, reason: 'VMIConditionMissing', message: 'VMI is missing the Ready condition' };
  }
  return { ...c, type: 'Ready' };
}

function syncConditions(
  conds: VirtualMachineCondition[] | undefined,
  input: VmStatusInput,
  now: string,
): VirtualMachineCondition[] {
  let out = upsertCondition(conds, readyCondition(input.vmi, now));
  out = input.failure
    ? upsertCondition(out, {
        type: 'Failure',
        status: 'True',
        reason: input.failure.reason,
        message: input.failure.message,
        lastTransitionTime: now,
      })
    : withoutCondition(out, 'Failure');
  out = restartRequiredCondition(out, input, now);
  const vmi = input.vmi;
  if (vmi === undefined) return out;
  const mirrored = (vmi.status?.conditions ?? []).filter((c) => !NOT_MIRRORED.has(c.type));
  for (const c of mirrored) out = upsertCondition(out, { ...c });
  const onVmi = new Set(mirrored.map((c) => c.type));
  return out.filter((c) => NOT_MIRRORED.has(c.type) || onVmi.has(c.type));
}

/** RestartRequired: set with its message, dropped once no VMI exists (KubeVirt cleanupRestartRequired). */
function restartRequiredCondition(
  conds: VirtualMachineCondition[],
  input: VmStatusInput,
  now: string,
): VirtualMachineCondition[] {
  if (input.vmi === undefined) return withoutCondition(conds, 'RestartRequired');
  if (input.restartRequired === undefined) return conds;
  return upsertCondition(conds, {
    type: 'RestartRequired',
    status: 'True',
    message: input.restartRequired,
    lastTransitionTime: now,
  });
}

function setOptional<K extends keyof VirtualMachineStatus>(
  status: VirtualMachineStatus,
  key: K,
  value: VirtualMachineStatus[K] | undefined,
): void {
  if (value === undefined) Reflect.deleteProperty(status, key);
  else status[key] = value;
}

/** status.runStrategy (once something was created) and status.startFailure. */
function syncRunStrategyFields(status: VirtualMachineStatus, input: VmStatusInput): void {
  const strategy = strategyOf(input.vm);
  if (strategy === undefined) return;
  if ((status.runStrategy ?? '') !== '' || status.created === true) status.runStrategy = strategy;
  const next = nextStartFailure({
    current: status.startFailure,
    vmi: input.vmi,
    runStrategy: strategy,
    nowMs: input.nowMs,
    random: input.random,
  });
  setOptional(status, 'startFailure', next);
}

/** Empty lists are left out, as KubeVirt's omitempty does. */
const nonEmpty = <T>(list: T[] | undefined): T[] | undefined =>
  list === undefined || list.length === 0 ? undefined : list;

export function computeVmStatus(input: VmStatusInput): VirtualMachineStatus {
  const { vm, vmi } = input;
  const now = rfc3339(input.nowMs);
  const status: VirtualMachineStatus = structuredClone(vm.status ?? {});
  status.created = vmi !== undefined;
  status.ready = findCondition(vmi?.status?.conditions, 'Ready')?.status === 'True';
  setOptional(status, 'volumeRequests', nonEmpty(pendingVolumeRequests(vm)));
  setOptional(status, 'resourceClaimRequests', nonEmpty(pendingResourceClaimRequests(vm)));
  if (isFirstStateChangeDone(vm, vmi)) {
    setOptional(status, 'stateChangeRequests', nonEmpty(status.stateChangeRequests?.slice(1)));
  }
  syncRunStrategyFields(status, input);
  status.conditions = syncConditions(status.conditions, input, now);
  status.printableStatus = printableStatus({
    vm: { ...vm, status },
    vmi,
    startExpected: input.startExpected,
    stopExpected: input.stopExpected,
    nowMs: input.nowMs,
    ...(input.volumes !== undefined && { volumes: input.volumes }),
  });
  return status;
}
