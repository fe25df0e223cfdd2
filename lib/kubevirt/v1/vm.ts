/** VirtualMachine spec (run strategy, VMI template, DataVolume templates) and status. */
import { s, type Infer } from '../schema/dsl.ts';
import { condition } from './common.ts';
import {
  addResourceClaimOptions,
  addVolumeOptions,
  removeResourceClaimOptions,
  removeVolumeOptions,
} from './subresources.ts';
import { vmiSpec } from './vmi-spec.ts';

export const runStrategy = s.enum(['Always', 'Halted', 'Manual', 'RerunOnFailure', 'Once', 'WaitAsReceiver']);
export type RunStrategy = Infer<typeof runStrategy>;

export const printableStatus = s.enum([
  'Stopped',
  'Provisioning',
  'Starting',
  'Running',
  'Paused',
  'Stopping',
  'Terminating',
  'CrashLoopBackOff',
  'Migrating',
  'Unknown',
  'ErrorUnschedulable',
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrorPvcNotFound',
  'DataVolumeError',
  'WaitingForVolumeBinding',
  'WaitingForReceiver',
]);
export type PrintableStatus = Infer<typeof printableStatus>;

export type VirtualMachineConditionType =
  'Failure' | 'Ready' | 'Paused' | 'RestartRequired' | 'ManualRecoveryRequired';

export const vmCondition = condition<VirtualMachineConditionType>();
export type VirtualMachineCondition = Infer<typeof vmCondition>;

const stateChangeAction = s.enum(['Start', 'Stop']);

const vmiTemplate = s.object({
  /** ObjectMeta of the VMIs created from the template (labels, annotations), kept as sent. */
  metadata: s
    .preserve<{ labels?: Record<string, string>; annotations?: Record<string, string> }>()
    .nullable(),
  spec: vmiSpec.required(),
});

/** A CDI DataVolume to create with the VM; its spec belongs to CDI and is kept as sent. */
const dataVolumeTemplate = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.preserve<{ name?: string; labels?: Record<string, string> }>().nullable(),
  spec: s.preserve().required(),
  status: s.preserve().nullable(),
});
export type DataVolumeTemplateSpec = Infer<typeof dataVolumeTemplate>;

const matcher = s.object({
  name: s.string(),
  kind: s.string(),
  revisionName: s.string(),
  inferFromVolume: s.string(),
  inferFromVolumeFailurePolicy: s.enum(['Reject', 'Ignore']),
});

export const vmSpec = s.object({
  /** Deprecated twin of runStrategy (true = Always, false = Halted); the two are mutually exclusive. */
  running: s.bool(),
  runStrategy,
  instancetype: matcher,
  preference: matcher,
  template: vmiTemplate.required(),
  dataVolumeTemplates: s.array(dataVolumeTemplate),
  updateVolumesStrategy: s.enum(['Replacement', 'Migration']),
});
export type VirtualMachineSpec = Infer<typeof vmSpec>;

export const stateChangeRequest = s.object({
  action: stateChangeAction.required(),
  data: s.map(s.string()),
  /** UID of the VMI the request applies to. */
  uid: s.string(),
});
export type VirtualMachineStateChangeRequest = Infer<typeof stateChangeRequest>;

export const startFailure = s.object({
  consecutiveFailCount: s.int(),
  lastFailedVMIUID: s.string(),
  retryAfterTimestamp: s.dateTime().nullable(),
});
export type VirtualMachineStartFailure = Infer<typeof startFailure>;

export const volumeRequest = s.object({ addVolumeOptions, removeVolumeOptions });
export type VirtualMachineVolumeRequest = Infer<typeof volumeRequest>;

export const resourceClaimRequest = s.object({ addResourceClaimOptions, removeResourceClaimOptions });
export type VirtualMachineResourceClaimRequest = Infer<typeof resourceClaimRequest>;
