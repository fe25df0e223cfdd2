/**
 * The MigrateVirtualMachine options JSON the source handler sends (kubevirt pkg/virt-handler
 * migration-source.go migrateVMI, configureParallelMigrationThreads; cmd-client MigrationOptions with Go's
 * field names, as the launcher parses them): the VMI's migration configuration (the controller's merge of
 * policy and cluster), else the cluster's, each missing field at KubeVirt's default. Pure.
 */
import { quantityValue, type VirtualMachineInstance } from '../../kubevirt/index.ts';

/** The KubeVirt CR's spec.configuration.migrations fields the options come from. */
export interface MigrationConfiguration {
  readonly bandwidthPerMigration?: string | number;
  readonly progressTimeout?: number;
  readonly completionTimeoutPerGiB?: number;
  readonly unsafeMigrationOverride?: boolean;
  readonly allowAutoConverge?: boolean;
  readonly allowPostCopy?: boolean;
  readonly allowWorkloadDisruption?: boolean;
}

export interface MigrationOptionsJson {
  readonly Bandwidth: string | number;
  readonly ProgressTimeout: number;
  readonly CompletionTimeoutPerGiB: number;
  readonly UnsafeMigration: boolean;
  readonly AllowAutoConverge: boolean;
  readonly AllowPostCopy: boolean;
  readonly AllowWorkloadDisruption: boolean;
  readonly ParallelMigrationThreads?: number;
}

/** The handler's multifd threads when the compute container's CPU is not limited. */
const PARALLEL_THREADS = 8;

/** KubeVirt's defaults (virt-config). */
const DEFAULTS = {
  bandwidthPerMigration: '0Mi',
  progressTimeout: 150,
  completionTimeoutPerGiB: 150,
  unsafeMigrationOverride: false,
  allowAutoConverge: false,
  allowPostCopy: false,
} as const;

/** A CPU limit above zero: multifd threads could starve the compute container. */
function cpuLimited(vmi: VirtualMachineInstance): boolean {
  const cpu = vmi.spec.domain.resources?.limits?.['cpu'];
  return cpu !== undefined && quantityValue(String(cpu), 'cpu') > 0;
}

export function migrationOptions(
  vmi: VirtualMachineInstance,
  cluster: MigrationConfiguration | undefined,
): MigrationOptionsJson {
  const own: MigrationConfiguration | undefined = vmi.status?.migrationState?.migrationConfiguration;
  const given = own ?? cluster ?? {};
  const c = { ...DEFAULTS, ...given };
  const threads = !c.allowPostCopy && !cpuLimited(vmi);
  return {
    Bandwidth: c.bandwidthPerMigration,
    ProgressTimeout: c.progressTimeout,
    CompletionTimeoutPerGiB: c.completionTimeoutPerGiB,
    UnsafeMigration: c.unsafeMigrationOverride,
    AllowAutoConverge: c.allowAutoConverge,
    AllowPostCopy: c.allowPostCopy,
    // KubeVirt's default follows allowPostCopy.
    AllowWorkloadDisruption: given.allowWorkloadDisruption ?? c.allowPostCopy,
    ...(threads && { ParallelMigrationThreads: PARALLEL_THREADS }),
  };
}
