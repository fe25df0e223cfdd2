/**
 * PUT virtualmachines/{name}/restart (kubevirt rest/lifecycle.go RestartVMRequestHandler, tag v1.6.2). In order:
 * - 400 for a body that does not decode as RestartOptions, and for a gracePeriodSeconds other than 0; then 404
 *   without the VM;
 * - 409 while the VM's VolumesChange condition is True (KubeVirt reuses the volume-migration recovery text);
 * - 409 under Halted and Once (KubeVirt's text spells "RunStategy"), and without a VMI;
 * - a Stop request for the VMI followed by a Start on the status (500 while other requests are pending);
 * - with gracePeriodSeconds 0, then the VMI's running launcher pod is deleted with a grace period of 1 s
 *   (launcher-pod.ts picks it; none found is still 202).
 * Pure.
 */
import { hasConditionStatus } from '../../../kubevirt/conditions.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { ACCEPTED, patchPlan, type VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, isRefusal, type Refusal } from '../refusal.ts';
import { changeRequestPatch } from './state-change.ts';
import { MANUAL_RECOVERY_REQUIRED } from '../messages.ts';
import { nameOf, runStrategyFor, withVm, type FoundVmRequest, type VmRequest } from './vm-request.ts';

export const ONLY_ZERO_GRACE = 'For force restart, only gracePeriod=0 is supported for now';
export const NEGATIVE_GRACE = 'gracePeriod has to be greater or equal to 0';

function graceRefusal(grace: number | undefined): Refusal | undefined {
  if (grace === undefined || grace === 0) return undefined;
  return badRequest(grace > 0 ? ONLY_ZERO_GRACE : NEGATIVE_GRACE);
}

/** The VM's refusals: a volume change under way, a run strategy that does not restart, no VMI. */
function vmRefusal(req: FoundVmRequest): Refusal | undefined {
  const { vm, vmi } = req;
  const name = nameOf(vm);
  if (hasConditionStatus(vm.status?.conditions, 'VolumesChange', 'True')) {
    return conflict('virtualmachine', name, MANUAL_RECOVERY_REQUIRED);
  }
  const strategy = runStrategyFor(vm);
  if (isRefusal(strategy)) return strategy;
  if (strategy === 'Halted' || strategy === 'Once') {
    return conflict(
      'virtualmachine',
      name,
      `RunStategy ${strategy} does not support manual restart requests`,
    );
  }
  return vmi === undefined ? conflict('virtualmachine', name, 'VM is not running: Halted') : undefined;
}

export function planRestart(request: VmRequest): VmPlan | Refusal {
  const opts = decodeOptions('restart', request.body);
  if (isRefusal(opts)) return opts;
  const grace = opts.gracePeriodSeconds;
  const badGrace = graceRefusal(grace);
  if (badGrace !== undefined) return badGrace;
  const req = withVm(request);
  if (isRefusal(req)) return req;
  const refused = vmRefusal(req);
  if (refused !== undefined) return refused;
  const uid = req.vmi?.metadata.uid ?? '';
  const ops = changeRequestPatch(req.vm, [{ action: 'Stop', uid }, { action: 'Start' }]);
  if (isRefusal(ops)) return ops;
  const onError = { kind: 'test-conflict', resource: 'virtualmachine' } as const;
  return {
    patches: [patchPlan('vm/status', ops, onError, opts.dryRun)],
    then: ACCEPTED,
    ...(grace === 0 && { deleteLauncherPod: { vmiUid: uid, gracePeriodSeconds: 1 } }),
  };
}
