/** VirtualMachineInstanceMigration spec and status. */
import { s, type Infer } from '../schema/dsl.ts';
import { condition } from './common.ts';
import { migrationState } from './migration-state.ts';
import { phaseTransitionTimestamp } from './vmi-status.ts';

export const migrationPhase = s.enum([
  'Pending',
  'Scheduling',
  'Scheduled',
  'PreparingTarget',
  'TargetReady',
  'Running',
  'Succeeded',
  'Failed',
  'WaitingForSync',
  'Synchronizing',
]);
export type MigrationPhase = Infer<typeof migrationPhase>;

export type MigrationConditionType = 'migrationAbortRequested' | 'migrationRejectedByResourceQuota';

export const migrationSpec = s.object({
  /** The VMI to migrate, in the migration's namespace. */
  vmiName: s.string(),
  /** Extra node selector the target must also match (it cannot loosen the VMI's own). */
  addedNodeSelector: s.map(s.string()),
  /** Decentralized (cross-cluster) migration: the source side. */
  sendTo: s.object({ migrationID: s.string().required(), connectURL: s.string().required() }),
  /** Decentralized migration: the receiving side. */
  receive: s.object({ migrationID: s.string().required() }),
});
export type VirtualMachineInstanceMigrationSpec = Infer<typeof migrationSpec>;

export const migrationStatus = s.object({
  phase: migrationPhase,
  phaseTransitionTimestamps: s.array(phaseTransitionTimestamp<MigrationPhase>()),
  conditions: s.array(condition<MigrationConditionType>()),
  migrationState,
  synchronizationAddresses: s.array(s.string(), { listType: 'atomic' }),
});
export type VirtualMachineInstanceMigrationStatus = Infer<typeof migrationStatus>;
