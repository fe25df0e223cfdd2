/**
 * What one sync of a VM should do, from the VM, its VMI (if any) and the time (kubevirt vm.go sync and
 * syncRunStrategy, tag v1.6.2):
 * - a VM being deleted stops its VMI, then drops the VM controller's finalizer once no VMI is left;
 * - Always: a final VMI, or one named by a Stop request, is deleted (the next sync starts a new one); no VMI →
 *   start, unless the start-failure backoff still runs;
 * - RerunOnFailure: a Failed or Succeeded VMI (or a stopped one) is deleted; only after a failure is a Start
 *   request queued so it restarts; no VMI → start on a Start request or when the strategy just changed;
 * - Manual: start on a Start request, stop on a Stop request naming the VMI;
 * - Halted: delete any VMI; with no VMI, a Start request switches the VM to Always (the "start paused" path);
 * - Once: create a VMI only when none exists, never restart.
 * WaitAsReceiver (migration receivers) is not supported and reported as a sync error.
 */
import { FINALIZERS, runStrategyOf } from '../../kubevirt/index.ts';
import type { RunStrategy, VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import { hasConditionStatus, type SyncFailure } from '../../kubevirt/conditions.ts';
import { hasFinalizer } from '../../kernel/controller/finalizers.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import { startBackoffSecondsLeft } from './backoff.ts';
import { hasStartRequest, hasStopRequestForVmi } from './state-change.ts';

export interface RunInput {
  vm: VirtualMachine;
  vmi: VirtualMachineInstance | undefined;
  nowMs: number;
}

/** A failure to report in the VM's Failure condition (KubeVirt's SyncError reason and message). */
export interface RunDecision {
  /** Why, for logs: 'start', 'restart', 'stop-request', 'halted', 'backoff', ... or 'none'. */
  reason: string;
  createVmi: boolean;
  deleteVmi: boolean;
  /** RerunOnFailure after a failure: queue a Start request so the next sync starts a new VMI. */
  addStartRequest: boolean;
  /** Halted with a Start request: switch spec to Always (spec.running: true when the VM uses running). */
  switchToAlways: boolean;
  vmFinalizer?: 'add' | 'remove';
  requeueAfterMs?: number;
  failure?: SyncFailure;
}

const NONE: RunDecision = {
  reason: 'none',
  createVmi: false,
  deleteVmi: false,
  addStartRequest: false,
  switchToAlways: false,
};

const decision = (reason: string, extra: Partial<RunDecision> = {}): RunDecision => ({
  ...NONE,
  reason,
  ...extra,
});

/** Delete the VMI unless its deletion is already under way (kubevirt stopVMI). */
function stop(vmi: VirtualMachineInstance, reason: string, extra: Partial<RunDecision> = {}): RunDecision {
  if (vmi.metadata.deletionTimestamp !== undefined) return decision(`${reason}-pending`, extra);
  return decision(reason, { deleteVmi: true, ...extra });
}

function start(input: RunInput, checkBackoff: boolean): RunDecision {
  if (checkBackoff) {
    const left = startBackoffSecondsLeft(input.vm, input.nowMs);
    if (left > 0) return decision('backoff', { requeueAfterMs: left * 1000 });
  }
  if (hasConditionStatus(input.vm.status?.conditions, 'ManualRecoveryRequired', 'True')) {
    return decision('manual-recovery-required');
  }
  return decision('start', { createVmi: true });
}

function always(input: RunInput): RunDecision {
  const { vm, vmi } = input;
  if (vmi === undefined) return start(input, true);
  if (hasStopRequestForVmi(vm, vmi)) return stop(vmi, 'restart-request');
  if (isFinal(vmi)) return stop(vmi, 'restart');
  return NONE;
}

function rerunOnFailure(input: RunInput): RunDecision {
  const { vm, vmi } = input;
  if (vmi !== undefined) {
    if (vmi.metadata.deletionTimestamp !== undefined) return NONE;
    const failed = vmi.status?.phase === 'Failed';
    if (hasStopRequestForVmi(vm, vmi) || failed || vmi.status?.phase === 'Succeeded') {
      return stop(vmi, failed ? 'restart-after-failure' : 'stop', { addStartRequest: failed });
    }
    return NONE;
  }
  if (!hasStartRequest(vm) && vm.status?.runStrategy === 'RerunOnFailure') return NONE;
  return start(input, true);
}

function manual(input: RunInput): RunDecision {
  const { vm, vmi } = input;
  if (vmi !== undefined) return hasStopRequestForVmi(vm, vmi) ? stop(vmi, 'stop-request') : NONE;
  return hasStartRequest(vm) ? start(input, false) : NONE;
}

function halted(input: RunInput): RunDecision {
  const { vm, vmi } = input;
  if (vmi !== undefined) return stop(vmi, 'halted');
  return hasStartRequest(vm) ? decision('start-request', { switchToAlways: true }) : NONE;
}

function byStrategy(strategy: RunStrategy, input: RunInput): RunDecision {
  switch (strategy) {
    case 'Always':
      return always(input);
    case 'RerunOnFailure':
      return rerunOnFailure(input);
    case 'Manual':
      return manual(input);
    case 'Halted':
      return halted(input);
    case 'Once':
      return input.vmi === undefined ? start(input, false) : NONE;
    case 'WaitAsReceiver':
      return decision('unsupported', {
        failure: { reason: 'FailedCreate', message: 'runStrategy WaitAsReceiver is not supported' },
      });
  }
}

function deleting(input: RunInput): RunDecision {
  const { vm, vmi } = input;
  const ours = hasFinalizer(vm, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER);
  if (vmi === undefined || hasFinalizer(vm, 'orphan')) {
    return ours ? decision('vm-deleted', { vmFinalizer: 'remove' }) : decision('vm-deleted');
  }
  return stop(vmi, 'vm-deleted');
}

/** The decision for one sync; throws nothing (a VM with both running and runStrategy is a sync failure). */
export function decideRun(input: RunInput): RunDecision {
  if (input.vm.metadata.deletionTimestamp !== undefined) return deleting(input);
  let strategy: RunStrategy;
  try {
    strategy = runStrategyOf(input.vm);
  } catch (err) {
    return decision('invalid', {
      failure: { reason: 'FailedCreate', message: `Error fetching RunStrategy: ${errorMessage(err)}` },
    });
  }
  const d = byStrategy(strategy, input);
  return hasFinalizer(input.vm, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER) ? d : { ...d, vmFinalizer: 'add' };
}
