/**
 * PUT virtualmachines/{name}/stop (kubevirt rest/lifecycle.go StopVMRequestHandler, tag v1.6.2). In order:
 * - 400 for a body that does not decode as StopOptions; then 404 without the VM;
 * - with a gracePeriod and a VMI that is not final: the VMI's spec.terminationGracePeriodSeconds is tested and
 *   replaced by it, whatever the run strategy and whatever follows (its failure is a plain 500);
 * - by run strategy: Halted stops only a VMI that is not final (409 "VM is not running") and only with a grace
 *   period shorter than the VMI's (409 otherwise, the VMI patch already sent), by a Stop request; Manual and
 *   RerunOnFailure stop a VMI that is not final by a Stop request (409 otherwise); Always and Once set the run
 *   strategy to Halted; WaitAsReceiver has no case (202, nothing else written).
 * A Stop request replaces any pending requests. Pure.
 */
import type { StopOptions, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { isFinal } from '../../../kubevirt/vmi-state.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { ACCEPTED, patchPlan, type PatchPlan, type VmPlan } from '../patch-plan.ts';
import { conflict, isRefusal, type Refusal } from '../refusal.ts';
import { changeRequestPatch, runningPatch } from './state-change.ts';
import { VM_NOT_RUNNING } from '../messages.ts';
import { nameOf, runStrategyFor, withVm, type FoundVmRequest, type VmRequest } from './vm-request.ts';

export const HALTED_NEEDS_SHORTER_GRACE =
  'Halted only supports manual stop requests with a shorter graceperiod';

const TEST_CONFLICT = { kind: 'test-conflict', resource: 'virtualmachine' } as const;

function gracePatch(
  vmi: VirtualMachineInstance,
  grace: number,
  dryRun: readonly string[] | undefined,
): PatchPlan {
  const path = '/spec/terminationGracePeriodSeconds';
  const old = vmi.spec.terminationGracePeriodSeconds ?? null;
  const ops = [
    { op: 'test', path, value: old },
    { op: 'replace', path, value: grace },
  ] as const;
  return patchPlan('vmi', ops, { kind: 'internal' }, dryRun);
}

interface StopCtx {
  readonly req: FoundVmRequest;
  /** The VMI, when it is not final. */
  readonly live: VirtualMachineInstance | undefined;
  readonly grace: number | undefined;
  readonly first: readonly PatchPlan[];
  readonly dryRun: readonly string[] | undefined;
}

function stopRequest({ req, live, first, dryRun }: StopCtx): VmPlan | Refusal {
  if (live === undefined) return conflict('virtualmachine', nameOf(req.vm), VM_NOT_RUNNING);
  const ops = changeRequestPatch(req.vm, [{ action: 'Stop', uid: live.metadata.uid ?? '' }]);
  if (isRefusal(ops)) return ops;
  return { patches: [...first, patchPlan('vm/status', ops, TEST_CONFLICT, dryRun)], then: ACCEPTED };
}

/** Halted: only a shorter grace period than the VMI's own can hurry a stop already under way. */
function haltedStop(ctx: StopCtx): VmPlan | Refusal {
  const { live, grace } = ctx;
  const old = live?.spec.terminationGracePeriodSeconds;
  if (live !== undefined && (grace === undefined || (old !== undefined && grace >= old))) {
    return {
      patches: ctx.first,
      then: conflict('virtualmachine', nameOf(ctx.req.vm), HALTED_NEEDS_SHORTER_GRACE),
    };
  }
  return stopRequest(ctx);
}

function stopContext(req: FoundVmRequest, opts: StopOptions): StopCtx {
  const vmi = req.vmi;
  const live = vmi !== undefined && !isFinal(vmi) ? vmi : undefined;
  const grace = opts.gracePeriod;
  const first = live !== undefined && grace !== undefined ? [gracePatch(live, grace, opts.dryRun)] : [];
  return { req, live, grace, first, dryRun: opts.dryRun };
}

export function planStop(request: VmRequest): VmPlan | Refusal {
  const opts = decodeOptions('stop', request.body);
  if (isRefusal(opts)) return opts;
  const req = withVm(request);
  if (isRefusal(req)) return req;
  const { vm } = req;
  const strategy = runStrategyFor(vm);
  if (isRefusal(strategy)) return strategy;
  const ctx = stopContext(req, opts);
  const { first } = ctx;
  switch (strategy) {
    case 'Halted':
      return haltedStop(ctx);
    case 'Manual':
    case 'RerunOnFailure':
      return stopRequest(ctx);
    case 'Always':
    case 'Once': {
      const halt = patchPlan('vm', runningPatch(vm, false), TEST_CONFLICT, ctx.dryRun);
      return { patches: [...first, halt], then: ACCEPTED };
    }
    case 'WaitAsReceiver':
      return { patches: first, then: ACCEPTED };
  }
}
