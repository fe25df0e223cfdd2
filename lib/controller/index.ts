/** The `controller` role: VM and VMI controllers, and the pure pieces they are made of. */
export { NODE_QUEUE, startControllers, VM_QUEUE, VMI_QUEUE } from './start.ts';
export { LEASE_NAME, runControllerRole, type ControllerRoleOptions } from './role.ts';
export { NodeController, type NodeControllerOptions } from './node/controller.ts';
export { isNodeUnresponsive, stuckVmis } from './node/unresponsive.ts';
export type { RunningControllers, StartControllersOptions } from './start.ts';
export { VmController, type VmControllerOptions } from './vm/controller.ts';
export { VmiController, currentPod, type VmiControllerOptions } from './vmi/controller.ts';
export { decideRun, type RunDecision, type RunInput, type SyncFailure } from './vm/run-strategy.ts';
export { MAX_START_BACKOFF_SECONDS, nextStartFailure, startBackoffSeconds } from './vm/backoff.ts';
export { PRINTABLE_STATUS_ORDER, printableStatus, type PrintableStatusInput } from './vm/printable-status.ts';
export { computeVmStatus, type VmStatusInput } from './vm/vm-status.ts';
export { legacyFirmwareUuid, newVmiFromVm } from './vm/vmi-from-vm.ts';
export { applyVolumeRequest, applyVolumeRequests } from './vm/volume-requests.ts';
export { launcherPodName, newLauncherPod, type LauncherPodConfig } from './vmi/launcher-pod.ts';
export { KUBEVIRT_OVERHEAD, memoryOverheadBytes, OUR_OVERHEAD } from './vmi/overhead.ts';
export { launcherResources } from './vmi/pod-resources.ts';
export { computeVmiStatus, type VmiStatusInput } from './vmi/vmi-status.ts';
export type { Pod } from './common/pod.ts';
