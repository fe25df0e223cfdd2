/**
 * status.stateChangeRequests as KubeVirt's VM controller reads them (kubevirt vm.go hasStartRequest,
 * hasStopRequestForVMI, isTrimFirstChangeRequestNeeded): only the first request is ever acted on.
 */
import { START_REQUEST_DATA_PAUSED } from '../../kubevirt/index.ts';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStateChangeRequest,
} from '../../kubevirt/index.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';

type Vm = Pick<VirtualMachine, 'status'>;

function firstStateChange(vm: Vm): VirtualMachineStateChangeRequest | undefined {
  return vm.status?.stateChangeRequests?.[0];
}

export function hasStartRequest(vm: Vm): boolean {
  return firstStateChange(vm)?.action === 'Start';
}

export function hasStartPausedRequest(vm: Vm): boolean {
  const req = firstStateChange(vm);
  return (
    req?.action === 'Start' && req.data?.[START_REQUEST_DATA_PAUSED.KEY] === START_REQUEST_DATA_PAUSED.TRUE
  );
}

/** A Stop request naming this VMI's uid. */
export function hasStopRequestForVmi(vm: Vm, vmi: Pick<VirtualMachineInstance, 'metadata'>): boolean {
  const req = firstStateChange(vm);
  return req?.action === 'Stop' && req.uid !== undefined && req.uid === vmi.metadata.uid;
}

/**
 * Whether the first request is done and can be dropped: a Stop once its VMI is gone (or replaced, or the
 * request names none); a Start once a live VMI exists.
 */
export function isFirstStateChangeDone(vm: Vm, vmi: VirtualMachineInstance | undefined): boolean {
  const req = firstStateChange(vm);
  if (req === undefined) return false;
  if (req.action === 'Stop') {
    return vmi === undefined || req.uid === undefined || req.uid !== vmi.metadata.uid;
  }
  return vmi !== undefined && vmi.metadata.deletionTimestamp === undefined && !isFinal(vmi);
}
