/**
 * status.printableStatus: the first status whose test holds, in KubeVirt's order (kubevirt vm.go
 * setPrintableStatus, tag v1.6.2). Several can hold at once (Running and Migrating, Paused and Terminating);
 * the order decides.
 */
import { runStrategyOf } from '../../kubevirt/index.ts';
import type {
  PrintableStatus,
  RunStrategy,
  VirtualMachine,
  VirtualMachineInstance,
} from '../../kubevirt/index.ts';
import { hasConditionStatus } from '../../kubevirt/conditions.ts';
import {
  isFinal,
  isMigrating,
  isRunning,
  isScheduled,
  isScheduling,
  isUnprocessed,
  isWaitingForSync,
} from '../../kubevirt/vmi-state.ts';
import { hasStartRequest, hasStopRequestForVmi } from './state-change.ts';

/** Volume facts KubeVirt reads from its DataVolume and PVC caches; all false when there are none. */
export interface VolumeFacts {
  dataVolumeProvisioning?: boolean;
  dataVolumeError?: boolean;
  unboundPvc?: boolean;
}

export interface PrintableStatusInput {
  vm: VirtualMachine;
  vmi: VirtualMachineInstance | undefined;
  /** The controller has asked for a VMI creation it has not observed yet (expectations). */
  startExpected: boolean;
  /** The controller has asked for a VMI deletion it has not observed yet. */
  stopExpected: boolean;
  nowMs: number;
  volumes?: VolumeFacts;
}

type Test = (i: PrintableStatusInput) => boolean;

function strategy(vm: VirtualMachine): RunStrategy | undefined {
  try {
    return runStrategyOf(vm);
  } catch {
    return undefined;
  }
}

const paused = (vmi: VirtualMachineInstance): boolean =>
  hasConditionStatus(vmi.status?.conditions, 'Paused', 'True');

const synchronizedFailure = (vmi: VirtualMachineInstance | undefined, reason: string): boolean =>
  hasConditionStatus(vmi?.status?.conditions, 'Synchronized', 'False', reason);

/** kubevirt vm.go isSetToStart. */
function isSetToStart(vm: VirtualMachine, vmi: VirtualMachineInstance | undefined): boolean {
  switch (strategy(vm)) {
    case 'Always':
      return true;
    case 'Manual':
      return vmi !== undefined ? !hasStopRequestForVmi(vm, vmi) : hasStartRequest(vm);
    case 'RerunOnFailure':
      return vmi === undefined || vmi.status?.phase !== 'Succeeded';
    case 'Once':
      return vmi === undefined;
    case 'Halted':
    case 'WaitAsReceiver':
    case undefined:
      return false;
  }
}

const crashLoop: Test = ({ vm, vmi, startExpected }) => {
  if ((vmi !== undefined && !isFinal(vmi)) || startExpected) return false;
  const s = strategy(vm);
  const fails = vm.status?.startFailure?.consecutiveFailCount ?? 0;
  return fails > 0 && (s === 'Always' || s === 'RerunOnFailure' || s === 'Once');
};

const ORDER: readonly (readonly [PrintableStatus, Test])[] = [
  ['Terminating', ({ vm }): boolean => vm.metadata.deletionTimestamp !== undefined],
  [
    'Stopping',
    ({ vmi, stopExpected }): boolean =>
      vmi !== undefined && !isFinal(vmi) && (vmi.metadata.deletionTimestamp !== undefined || stopExpected),
  ],
  ['Migrating', ({ vmi, nowMs }): boolean => vmi !== undefined && isMigrating(vmi, nowMs)],
  ['Paused', ({ vmi }): boolean => vmi !== undefined && isRunning(vmi) && paused(vmi)],
  ['Running', ({ vmi }): boolean => vmi !== undefined && isRunning(vmi) && !paused(vmi)],
  ['ErrorPvcNotFound', ({ vmi }): boolean => synchronizedFailure(vmi, 'FailedPvcNotFound')],
  ['DataVolumeError', ({ volumes }): boolean => volumes?.dataVolumeError === true],
  [
    'ErrorUnschedulable',
    ({ vmi }): boolean =>
      hasConditionStatus(vmi?.status?.conditions, 'PodScheduled', 'False', 'Unschedulable'),
  ],
  ['Provisioning', ({ volumes }): boolean => volumes?.dataVolumeProvisioning === true],
  [
    'WaitingForVolumeBinding',
    ({ vm, vmi, volumes }): boolean => volumes?.unboundPvc === true && isSetToStart(vm, vmi),
  ],
  ['ErrImagePull', ({ vmi }): boolean => synchronizedFailure(vmi, 'ErrImagePull')],
  ['ImagePullBackOff', ({ vmi }): boolean => synchronizedFailure(vmi, 'ImagePullBackOff')],
  [
    'Starting',
    ({ vmi, startExpected }): boolean =>
      vmi === undefined ? startExpected : isUnprocessed(vmi) || isScheduling(vmi) || isScheduled(vmi),
  ],
  ['CrashLoopBackOff', crashLoop],
  ['Stopped', ({ vmi, startExpected }): boolean => (vmi !== undefined ? isFinal(vmi) : !startExpected)],
  [
    'WaitingForReceiver',
    ({ vm, vmi }): boolean =>
      (vmi === undefined || isWaitingForSync(vmi)) && strategy(vm) === 'WaitAsReceiver',
  ],
];

/** The statuses in precedence order (for tests and documentation). */
export const PRINTABLE_STATUS_ORDER: readonly PrintableStatus[] = ORDER.map(([s]) => s);

export function printableStatus(input: PrintableStatusInput): PrintableStatus {
  for (const [status, test] of ORDER) if (test(input)) return status;
  return 'Unknown';
}
