/**
 * What a migration pass reads and decides (kubevirt migration.go, tag v1.6.2): the inputs of decideMigration
 * (phase.ts) and its actions, phase, conditions and events.
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { MigrationConditionType, MigrationPhase } from '../../kubevirt/v1/migration.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';

interface MigrationLimits {
  /** Default 5 (KubeVirt's migrationConfiguration default). */
  parallelMigrationsPerCluster?: number;
  /** Default 2. */
  parallelOutboundMigrationsPerNode?: number;
  /** Unfinished migrations past Pending, or Pending with a target Pod (kubevirt findRunningMigrations). */
  running: number;
  /** Of those, the ones whose VMI runs on, or migrates from, this VMI's node (outboundMigrationsOnNode). */
  outboundFromNode: number;
}

export interface MigrationInput {
  migration: VirtualMachineInstanceMigration;
  vmi: VirtualMachineInstance | undefined;
  /** The Pod labelled with the migration's uid (kubevirt.io/migrationJobUID), if any. */
  targetPod: Pod | undefined;
  /** The VMI's current launcher Pod. */
  sourcePod: Pod | undefined;
  /** The VMI has hotplugged volumes: the target Pod needs an attachment Pod of its own (VMIHasHotplugVolumes). */
  hotplug: boolean;
  /** The target Pod's volume attachment Pod, if any. */
  attachmentPod: Pod | undefined;
  limits: MigrationLimits;
  /** The VMI's migrationState names another migration that exists and is not final (canMigrateVMI false). */
  otherMigrationActive: boolean;
  nowMs: number;
  /** The error of the last target Pod create, to detect a ResourceQuota rejection. */
  createError?: string;
  /** How long this evacuation or workload-update migration still backs off (backoff.ts); 0 or unset: none. */
  backoffMs?: number;
}

export type MigrationAction =
  /** The VMI is gone: delete the migration. */
  | { kind: 'deleteMigration' }
  | { kind: 'createTargetPod' }
  /** The attachment Pod of the target Pod: the VMI's hotplugged volumes on the target node. */
  | { kind: 'createAttachmentPod' }
  | { kind: 'deleteTargetPod'; message: string }
  /**
   * Write the VMI's migrationState (uid, source and target node and Pod, the target's attachment Pod) and its
   * target-node label.
   */
  | { kind: 'handOff' }
  /** status.migrationState.abortRequested = true on the VMI. */
  | { kind: 'abortOnVmi' }
  /** status.migrationState.failed (and completed) on the VMI: the target went before the source started. */
  | { kind: 'failOnVmi' }
  /** Annotate the target Pod kubevirt.io/migration-target-ready-timestamp with the domain's ready time. */
  | { kind: 'markTargetReady'; timestamp: string }
  /** A final migration: copy the VMI's migrationState into its status and drop the migration's finalizer. */
  | { kind: 'finalize'; copyMigrationState: boolean };

export interface MigrationDecision {
  /** The phase to write; undefined keeps it unset. */
  phase: MigrationPhase | undefined;
  actions: MigrationAction[];
  addConditions: MigrationConditionType[];
  removeConditions: MigrationConditionType[];
  /** The Warning event of a failure (KubeVirt's message), set when this pass fails the migration. */
  failure?: string;
  /** A Normal event (success). */
  event?: string;
  /** A Warning event that fails nothing (the target Pod cannot be scheduled yet). */
  warning?: string;
  /** A Warning event on the VMI: the migration backs off (KubeVirt's MigrationBackoff). */
  backoff?: string;
  requeueAfterMs?: number;
  /** Why this pass could not act (KubeVirt's sync error). */
  syncError?: string;
}

/** The VMI's migrationState belongs to this migration. */
export const ownsState = (vmi: VirtualMachineInstance, m: VirtualMachineInstanceMigration): boolean =>
  vmi.status?.migrationState?.migrationUid === m.metadata.uid;
