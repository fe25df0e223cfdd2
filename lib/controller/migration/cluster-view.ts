/**
 * What a migration pass counts across the cluster's cache (kubevirt migration.go findRunningMigrations,
 * outboundMigrationsOnNode, canMigrateVMI, and controller.VMIActivePodsCount, tag v1.6.2): the migrations that
 * hold a parallel slot, those leaving a node, whether another migration owns the VMI's migrationState, and how
 * many of the VMI's Pods are up.
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { isPodDown, type Pod } from '../../kubevirt/core/pod.ts';

type Migration = VirtualMachineInstanceMigration;

export const isMigrationFinal = (m: Migration): boolean =>
  m.status?.phase === 'Succeeded' || m.status?.phase === 'Failed';

/** Past Pending and not final (KubeVirt's VirtualMachineInstanceMigration.IsRunning). */
export const isMigrationRunning = (m: Migration): boolean =>
  !isMigrationFinal(m) && m.status?.phase !== undefined && m.status.phase !== 'Pending';

/** Unfinished migrations past Pending, or Pending with a target Pod: each holds a parallel slot. */
export function runningMigrations(
  migrations: readonly Migration[],
  hasTargetPod: (m: Migration) => boolean,
): Migration[] {
  return migrations.filter((m) => !isMigrationFinal(m) && (isMigrationRunning(m) || hasTargetPod(m)));
}

/** Of the running migrations, those whose VMI runs on node or migrates from it. */
export function outboundFromNode(
  node: string,
  running: readonly Migration[],
  vmiOf: (m: Migration) => VirtualMachineInstance | undefined,
): number {
  return running.filter((m) => {
    const vmi = vmiOf(m);
    if (vmi === undefined) return false;
    return vmi.status?.nodeName === node || vmi.status?.migrationState?.sourceNode === node;
  }).length;
}

/**
 * The VMI's migrationState names another migration of the namespace that exists and is not final (KubeVirt's
 * canMigrateVMI answers false).
 */
export function otherMigrationActive(
  vmi: VirtualMachineInstance,
  m: Migration,
  sameNamespace: readonly Migration[],
): boolean {
  const owner = vmi.status?.migrationState?.migrationUid ?? '';
  if (owner === '' || owner === m.metadata.uid) return false;
  const other = sameNamespace.find((o) => o.metadata.uid === owner);
  return other !== undefined && !isMigrationFinal(other);
}

/** The VMI's Pods that are not Succeeded or Failed. */
export const activePodCount = (pods: readonly Pod[]): number => pods.filter((p) => !isPodDown(p)).length;
