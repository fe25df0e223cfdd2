/** VirtualMachine status: printable status, readiness, requests queued for the controller, start failures. */
import { s, type Infer } from '../schema/dsl.ts';
import { opaque } from './common.ts';
import {
  printableStatus,
  resourceClaimRequest,
  runStrategy,
  startFailure,
  stateChangeRequest,
  vmCondition,
  volumeRequest,
} from './vm.ts';

const memoryDumpPhase = s.enum([
  'Associating',
  'InProgress',
  'Unmounting',
  'Completed',
  'Dissociating',
  'Failed',
]);

const memoryDumpRequest = s.object({
  claimName: s.string().required(),
  phase: memoryDumpPhase.required(),
  remove: s.bool(),
  startTimestamp: s.dateTime().nullable(),
  endTimestamp: s.dateTime().nullable(),
  fileName: s.string(),
  message: s.string(),
});

const instancetypeStatusRef = s.object({
  name: s.string(),
  kind: s.string(),
  controllerRevisionRef: s.object({ name: s.string() }),
  inferFromVolume: s.string(),
  inferFromVolumeFailurePolicy: s.string(),
});

export const vmStatus = s.object({
  printableStatus: printableStatus.default('Stopped'),
  created: s.bool(),
  ready: s.bool(),
  conditions: s.array(vmCondition),
  stateChangeRequests: s.array(stateChangeRequest),
  volumeRequests: s.array(volumeRequest, { listType: 'atomic' }),
  /** Deckhouse fork: host devices to hotplug or unplug through DRA claims. */
  resourceClaimRequests: s.array(resourceClaimRequest, { listType: 'atomic' }),
  volumeSnapshotStatuses: s.array(
    s.object({ name: s.string().required(), enabled: s.bool().required(), reason: s.string() }),
  ),
  startFailure: startFailure.nullable(),
  memoryDumpRequest: memoryDumpRequest.nullable(),
  observedGeneration: s.int('int64'),
  desiredGeneration: s.int('int64'),
  /** The run strategy last acted on (RerunOnFailure needs it). */
  runStrategy,
  snapshotInProgress: s.string(),
  restoreInProgress: s.string(),
  volumeUpdateState: opaque,
  instancetypeRef: instancetypeStatusRef.nullable(),
  preferenceRef: instancetypeStatusRef.nullable(),
});
export type VirtualMachineStatus = Infer<typeof vmStatus>;
