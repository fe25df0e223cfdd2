/**
 * Which part of a VMI's migration this handler's node plays (kubevirt pkg/virt-handler migration-source.go
 * isMigrationSource, isMigrationDone; migration-target.go isMigrationTarget, execute; vm.go execute's orphan
 * check, controller.go isMigrationInProgress). Source and target are asked separately, as KubeVirt runs two
 * controllers: in local mode both launchers may share a node. Pure.
 */
import { LABELS, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { DomainJson } from '../../rpc/index.ts';

type Vmi = Pick<VirtualMachineInstance, 'metadata' | 'status'>;
type State = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;

const set = (t: string | null | undefined): boolean => t !== undefined && t !== null && t !== '';
const isFinal = (vmi: Vmi): boolean => vmi.status?.phase === 'Succeeded' || vmi.status?.phase === 'Failed';

/** The migration ended and someone recorded how: the end time and completed or failed. */
export function migrationDone(state: State | undefined): boolean {
  return (
    state === undefined || (set(state.endTimestamp) && (state.completed === true || state.failed === true))
  );
}

/** The domain left this node by migration (Shutoff, reason Migrated). */
const domainMigrated = (domain: DomainJson | undefined): boolean =>
  domain !== undefined && domain.Status.Status === 'Shutoff' && domain.Status.Reason === 'Migrated';

/**
 * This node runs the VMI and is the migration's source, and the migration is not done. A VMI whose nodeName
 * moved to the target after success is not the source's any more, whatever sourceNode says.
 */
export function isMigrationSource(vmi: Vmi, node: string): boolean {
  const state = vmi.status?.migrationState;
  if (state === undefined || isFinal(vmi) || vmi.metadata.deletionTimestamp !== undefined) return false;
  return vmi.status?.nodeName === node && state.sourceNode === node && !migrationDone(state);
}

/** The source's proxy may go: a migration record this node was the source of is done. */
export function sourceProxyDone(vmi: Vmi, node: string): boolean {
  const state = vmi.status?.migrationState;
  return state !== undefined && state.sourceNode === node && migrationDone(state);
}

/**
 * This node is the migration's target: the controller labelled the VMI with it and handed the migration over
 * (migrationState set). As KubeVirt, the label decides, not migrationState.targetNode: the label goes once
 * the target cleaned up, which ends the target's part; a final or deleted VMI has none.
 */
export function isMigrationTarget(vmi: Vmi, node: string): boolean {
  if (vmi.status?.migrationState === undefined) return false;
  if (isFinal(vmi) || vmi.metadata.deletionTimestamp !== undefined) return false;
  return vmi.metadata.labels?.[LABELS.MIGRATION_TARGET_NODE_NAME] === node;
}

/**
 * The domain on this node migrated away (or is being deleted): the node's copy is an orphan to delete, and
 * the VMI is not this node's any more (vm.go execute, before any phase is computed).
 */
export const isOrphanedMigrationSource = (domain: DomainJson | undefined): boolean => domainMigrated(domain);

/**
 * A migration is under way as the VMI or the domain tell (started, not ended; or the domain paused for it):
 * the node's VMI controller leaves the VMI alone meanwhile (vm.go execute).
 */
export function migrationInProgress(vmi: Vmi | undefined, domain: DomainJson | undefined): boolean {
  const state = vmi?.status?.migrationState;
  if (state !== undefined && set(state.startTimestamp) && !set(state.endTimestamp)) return true;
  if (domain === undefined) return false;
  const meta = domain.Spec.Metadata?.KubeVirt.Migration;
  if (meta !== undefined && set(meta.StartTimestamp) && !set(meta.EndTimestamp)) return true;
  return (
    domain.Status.Status === 'Paused' &&
    ['Migration', 'StartingUp', 'Postcopy'].includes(domain.Status.Reason)
  );
}
