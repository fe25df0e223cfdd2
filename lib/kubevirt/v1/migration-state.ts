/**
 * status.migrationState of a VMI (also copied into the migration's status). Fields not listed here, such as
 * the Deckhouse fork's extra progress data, are kept as sent.
 */
import { s } from '../schema/dsl.ts';
import { opaque } from './common.ts';

const migrationMode = s.enum(['PreCopy', 'PostCopy', 'Paused']);
const migrationAbortStatus = s.enum(['Succeeded', 'Failed', 'Aborting']);

export const migrationState = s.object(
  {
    migrationUid: s.string(),
    startTimestamp: s.dateTime().nullable(),
    endTimestamp: s.dateTime().nullable(),
    sourceNode: s.string(),
    sourcePod: s.string(),
    targetNode: s.string(),
    targetPod: s.string(),
    targetNodeAddress: s.string(),
    targetNodeDomainDetected: s.bool(),
    targetNodeDomainReadyTimestamp: s.dateTime().nullable(),
    targetDirectMigrationNodePorts: s.map(s.int()),
    targetAttachmentPodUID: s.string(),
    targetCPUSet: s.array(s.int(), { listType: 'atomic' }),
    targetNodeTopology: s.string(),
    completed: s.bool(),
    failed: s.bool(),
    abortRequested: s.bool(),
    abortStatus: migrationAbortStatus,
    failureReason: s.string(),
    mode: migrationMode,
    migrationPolicyName: s.string(),
    migrationConfiguration: opaque,
    migrationNetworkType: s.string(),
    sourcePersistentStatePVCName: s.string(),
    targetPersistentStatePVCName: s.string(),
    sourceState: opaque,
    targetState: opaque,
  },
  { preserveUnknown: true },
);
