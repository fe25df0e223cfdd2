/**
 * What start, stop and restart read (kubevirt rest/lifecycle.go, tag v1.6.2): the VM of the request, its VMI if
 * there is one (undefined when the API server has none), and the body as parsed JSON (undefined or null when
 * empty). A missing VM is answered 404 at the point KubeVirt reads it (after the body for stop and restart,
 * first for start). Pure.
 */
import {
  runStrategyOf,
  type RunStrategy,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../../kubevirt/index.ts';
import { errorMessage } from '../../../kernel/errors/errors.ts';
import { internalError, notFound, type Refusal } from '../refusal.ts';

export interface VmRequest {
  /** The name in the request path. */
  readonly name: string;
  readonly vm: VirtualMachine | undefined;
  readonly vmi?: VirtualMachineInstance | undefined;
  readonly body: unknown;
}

export interface FoundVmRequest extends VmRequest {
  readonly vm: VirtualMachine;
}

/** The request with its VM, or 404 (fetchVirtualMachine). */
export function withVm(req: VmRequest): FoundVmRequest | Refusal {
  const vm = req.vm;
  return vm === undefined ? notFound('virtualmachine', req.name) : { ...req, vm };
}

/** The VM's run strategy, or 500 when spec.running and spec.runStrategy are both set (vm.RunStrategy()). */
export function runStrategyFor(vm: VirtualMachine): RunStrategy | Refusal {
  try {
    return runStrategyOf(vm);
  } catch (e) {
    return internalError(errorMessage(e));
  }
}

export const nameOf = (vm: VirtualMachine): string => vm.metadata.name ?? '';
