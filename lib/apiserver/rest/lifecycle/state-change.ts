/**
 * The two writes start, stop and restart make on a VM (kubevirt rest/lifecycle.go getChangeRequestJson and
 * getRunningPatch, tag v1.6.2):
 * - state change requests on the status: a VM whose status is empty gets `add /status` with the requests alone;
 *   otherwise the current list is tested and the requests added (no list yet) or, for a lone Stop, put in its
 *   place; any other request while one is pending is refused ("stop/start already underway"). A start failure
 *   on record is removed with it;
 * - the run strategy: `test` + `replace` of spec.runStrategy with Always or Halted, or of the deprecated
 *   spec.running with true or false when the VM uses that instead.
 * Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineStateChangeRequest,
  VirtualMachineStatus,
} from '../../../kubevirt/index.ts';
import type { JsonPatchOp } from '../patch-plan.ts';
import { internalError, type Refusal } from '../refusal.ts';

export const CHANGE_UNDERWAY = 'unable to complete request: stop/start already underway';

/** Status fields that are pointers in Go: set at all, even to '', they are a value. */
const POINTER_STRINGS: ReadonlySet<string> = new Set(['snapshotInProgress', 'restoreInProgress']);

function isZeroField(key: string, v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0) return true;
  if (v === '') return !POINTER_STRINGS.has(key);
  return Array.isArray(v) && v.length === 0;
}

/**
 * Whether the status equals Go's zero value under apimachinery's semantic equality: every field absent, null,
 * false, 0, '' (but for the pointer strings) or an empty list. An object, even an empty one, is a value.
 */
export function isEmptyStatus(status: VirtualMachineStatus | undefined): boolean {
  if (status === undefined) return true;
  return Object.entries(status).every(([k, v]) => isZeroField(k, v));
}

export function changeRequestPatch(
  vm: Pick<VirtualMachine, 'status'>,
  changes: readonly VirtualMachineStateChangeRequest[],
): JsonPatchOp[] | Refusal {
  const status = vm.status;
  const ops: JsonPatchOp[] = [];
  if (status === undefined || isEmptyStatus(status)) {
    ops.push({ op: 'add', path: '/status', value: { stateChangeRequests: changes } });
  } else {
    const current = status.stateChangeRequests;
    ops.push({ op: 'test', path: '/status/stateChangeRequests', value: current ?? null });
    const loneStop = changes.length === 1 && changes[0]?.action === 'Stop';
    if (current === undefined || current.length === 0) {
      ops.push({ op: 'add', path: '/status/stateChangeRequests', value: changes });
    } else if (loneStop) {
      ops.push({ op: 'replace', path: '/status/stateChangeRequests', value: changes });
    } else {
      return internalError(CHANGE_UNDERWAY);
    }
  }
  if (status?.startFailure !== undefined && status.startFailure !== null) {
    ops.push({ op: 'remove', path: '/status/startFailure' });
  }
  return ops;
}

export function runningPatch(vm: Pick<VirtualMachine, 'spec'>, running: boolean): JsonPatchOp[] {
  if (vm.spec.runStrategy !== undefined) {
    return [
      { op: 'test', path: '/spec/runStrategy', value: vm.spec.runStrategy },
      { op: 'replace', path: '/spec/runStrategy', value: running ? 'Always' : 'Halted' },
    ];
  }
  return [
    { op: 'test', path: '/spec/running', value: vm.spec.running ?? null },
    { op: 'replace', path: '/spec/running', value: running },
  ];
}
