/**
 * PUT virtualmachines/{name}/evacuatecancel and virtualmachineinstances/{name}/evacuatecancel (the Deckhouse
 * fork's rest/evacuate-cancel.go EvacuateCancelHandler, 3p-kubevirt v1.6.2-virtualization): the VMI is read as
 * KubeVirt reads it for the resource (for a VM, FetchVirtualMachineInstanceForVM: 404 without the VM, 409 "VMI
 * is not started" while the VM has created none, 404 without the VMI, 500 when the VMI is not the VM's; for a
 * VMI, 404 without it), then:
 * - 400 "vmi {namespace}/{name} is not evacuated" while its status.evacuationNodeName is empty;
 * - 400 for a body that does not decode as EvacuateCancelOptions;
 * - else status.evacuationNodeName is tested and replaced by "" on the VMI (JSON patch, with the body's
 *   dryRun), so the evacuation the eviction webhook asked for is no longer wanted; a failed patch is 500, else
 *   200 with no body.
 * Pure.
 */
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { OK, patchPlan, type VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, internalError, isRefusal, notFound, type Refusal } from '../refusal.ts';

export interface EvacuateCancelRequest {
  readonly resource: 'virtualmachines' | 'virtualmachineinstances';
  readonly namespace: string;
  /** The name in the request path. */
  readonly name: string;
  /** The VM of that name (VM requests only). */
  readonly vm?: VirtualMachine | undefined;
  readonly vmi: VirtualMachineInstance | undefined;
  readonly body: unknown;
}

/** The VMI a VM started and owns (FetchVirtualMachineInstanceForVM), or why there is none. */
function vmiOfVm(req: EvacuateCancelRequest): VirtualMachineInstance | Refusal {
  const { vm, vmi, name } = req;
  if (vm === undefined) return notFound('virtualmachine', name);
  if (vm.status?.created !== true)
    return conflict('virtualmachine', vm.metadata.name ?? name, 'VMI is not started');
  if (vmi === undefined) return notFound('virtualmachineinstance', name);
  const owned = (vmi.metadata.ownerReferences ?? []).some((r) => r.uid === vm.metadata.uid);
  // KubeVirt prints the (nil) error of the last read here.
  return owned ? vmi : internalError(`unable to retrieve vmi [${name}] for vm: <nil>`);
}

export function planEvacuateCancel(req: EvacuateCancelRequest): VmPlan | Refusal {
  const vmi =
    req.resource === 'virtualmachines'
      ? vmiOfVm(req)
      : (req.vmi ?? notFound('virtualmachineinstance', req.name));
  if (isRefusal(vmi)) return vmi;
  const node = vmi.status?.evacuationNodeName ?? '';
  if (node === '') return badRequest(`vmi ${req.namespace}/${req.name} is not evacuated`);
  const opts = decodeOptions('evacuatecancel', req.body);
  if (isRefusal(opts)) return opts;
  const path = '/status/evacuationNodeName';
  const ops = [
    { op: 'test' as const, path, value: node },
    { op: 'replace' as const, path, value: '' },
  ];
  return { patches: [patchPlan('vmi', ops, { kind: 'internal' }, opts.dryRun)], then: OK };
}
