/**
 * PUT virtualmachines/{name}/start (kubevirt rest/lifecycle.go StartVMRequestHandler, tag v1.6.2). In order:
 * - 404 without the VM;
 * - 409 "VM is already running" while a VMI exists that is not final and whose phase is set and not Unknown;
 * - 409 when the VM's ManualRecoveryRequired condition is True (a failed volume migration);
 * - 400 for a body that does not decode as StartOptions;
 * - by run strategy: Halted sets the run strategy to Always, or, for a paused start, leaves it and asks the
 *   controller with a Start request carrying paused=true (KubeVirt's guard against a template that already starts
 *   paused compares pointers, so it never holds); Manual and RerunOnFailure ask with a Start request, preceded
 *   by a Stop of the old VMI when it is final (Manual) or Succeeded (RerunOnFailure); a Failed VMI under
 *   RerunOnFailure is 409; Always and Once are 409; WaitAsReceiver has no case, so nothing is written and the
 *   answer is still 202.
 * Pure.
 */
import { hasConditionStatus } from '../../../kubevirt/conditions.ts';
import {
  START_REQUEST_DATA_PAUSED,
  type RunStrategy,
  type StartOptions,
  type VirtualMachineStateChangeRequest,
} from '../../../kubevirt/index.ts';
import { isFinal } from '../../../kubevirt/vmi-state.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { ACCEPTED, patchPlan, type JsonPatchOp, type VmPlan } from '../patch-plan.ts';
import { conflict, isRefusal, type Refusal } from '../refusal.ts';
import { changeRequestPatch, runningPatch } from './state-change.ts';
import { MANUAL_RECOVERY_REQUIRED } from '../messages.ts';
import { nameOf, runStrategyFor, withVm, type FoundVmRequest, type VmRequest } from './vm-request.ts';

const TEST_CONFLICT = { kind: 'test-conflict', resource: 'virtualmachine' } as const;

function isActive(vmi: VmRequest['vmi']): boolean {
  const phase = vmi?.status?.phase ?? '';
  return vmi !== undefined && !isFinal(vmi) && phase !== 'Unknown' && phase !== '';
}

function plan(
  target: 'vm' | 'vm/status',
  ops: JsonPatchOp[] | Refusal,
  dryRun: readonly string[] | undefined,
): VmPlan | Refusal {
  if (isRefusal(ops)) return ops;
  return { patches: [patchPlan(target, ops, TEST_CONFLICT, dryRun)], then: ACCEPTED };
}

interface StartCtx {
  readonly req: FoundVmRequest;
  readonly strategy: 'Manual' | 'RerunOnFailure';
  readonly start: VirtualMachineStateChangeRequest;
  readonly dryRun: readonly string[] | undefined;
}

/** The requests Manual and RerunOnFailure send: a Start, after a Stop of a VMI that ended (a restart). */
function startRequests({ req, strategy, start, dryRun }: StartCtx): VmPlan | Refusal {
  const { vm, vmi } = req;
  const phase = vmi?.status?.phase;
  if (strategy === 'RerunOnFailure' && phase === 'Failed') {
    return conflict(
      'virtualmachine',
      nameOf(vm),
      'RerunOnFailure does not support starting VM from failed state',
    );
  }
  const restart = vmi !== undefined && (strategy === 'Manual' ? isFinal(vmi) : phase === 'Succeeded');
  const changes = restart ? [{ action: 'Stop' as const, uid: vmi.metadata.uid ?? '' }, start] : [start];
  return plan('vm/status', changeRequestPatch(vm, changes), dryRun);
}

/** The checks made before the body is read. */
function precondition({ vm, vmi }: FoundVmRequest): Refusal | undefined {
  if (isActive(vmi)) return conflict('virtualmachine', nameOf(vm), 'VM is already running');
  if (hasConditionStatus(vm.status?.conditions, 'ManualRecoveryRequired', 'True')) {
    return conflict('virtualmachine', nameOf(vm), MANUAL_RECOVERY_REQUIRED);
  }
  return undefined;
}

export function planStart(request: VmRequest): VmPlan | Refusal {
  const req = withVm(request);
  if (isRefusal(req)) return req;
  const refused = precondition(req);
  if (refused !== undefined) return refused;
  const opts = decodeOptions('start', req.body);
  if (isRefusal(opts)) return opts;
  const strategy = runStrategyFor(req.vm);
  if (isRefusal(strategy)) return strategy;
  return byStrategy(req, strategy, opts);
}

function byStrategy(req: FoundVmRequest, strategy: RunStrategy, opts: StartOptions): VmPlan | Refusal {
  const { vm } = req;
  const paused = opts.paused === true;
  const start: VirtualMachineStateChangeRequest = {
    action: 'Start',
    ...(paused && { data: { [START_REQUEST_DATA_PAUSED.KEY]: START_REQUEST_DATA_PAUSED.TRUE } }),
  };
  switch (strategy) {
    case 'Halted':
      return paused
        ? plan('vm/status', changeRequestPatch(vm, [start]), opts.dryRun)
        : plan('vm', runningPatch(vm, true), opts.dryRun);
    case 'Manual':
    case 'RerunOnFailure':
      return startRequests({ req, strategy, start, dryRun: opts.dryRun });
    case 'Always':
    case 'Once':
      return conflict('virtualmachine', nameOf(vm), `${strategy} does not support manual start requests`);
    case 'WaitAsReceiver':
      return { patches: [], then: ACCEPTED };
  }
}
