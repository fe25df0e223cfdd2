/**
 * What start, stop and restart read (kubevirt rest/lifecycle.go, tag v1.6.2): the VM of the request, its VMI if
 * there is one, and the body as parsed JSON (undefined or null when empty). The shell answers 404 itself when
 * the VM is not there (refusal.ts notFound), as fetchVirtualMachine does. Pure.
 */
import {
  runStrategyOf,
  type RunStrategy,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../api/index.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import { internalError, type Refusal } from './refusal.ts';

export interface VmRequest {
  readonly vm: VirtualMachine;
  readonly vmi?: VirtualMachineInstance | undefined;
  readonly body: unknown;
}

export const VM_NOT_RUNNING = 'VM is not running';
export const MANUAL_RECOVERY_REQUIRED =
  'VM recovery required: Volume migration failed, leaving some volumes pointing to non-consistent targets; ' +
  'manual intervention is needed to reassign them to their original volumes.';

/** The VM's run strategy, or 500 when spec.running and spec.runStrategy are both set (vm.RunStrategy()). */
export function runStrategyFor(vm: VirtualMachine): RunStrategy | Refusal {
  try {
    return runStrategyOf(vm);
  } catch (e) {
    return internalError(errorMessage(e));
  }
}

export const nameOf = (vm: VirtualMachine): string => vm.metadata.name ?? '';
