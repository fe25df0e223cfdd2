/**
 * The cluster's migrationConfiguration (kubevirt virt-config configuration.go defaults, merged with the
 * KubeVirt CR's spec.configuration.migrations, tag v1.6.2): what the migration controller limits by and copies
 * into the VMI's migrationState at the hand-off for the handlers to migrate with.
 */
import type { KubeVirt } from '../../kubevirt/index.ts';

export interface MigrationConfiguration {
  parallelMigrationsPerCluster: number;
  parallelOutboundMigrationsPerNode: number;
  nodeDrainTaintKey: string;
  bandwidthPerMigration: string;
  progressTimeout: number;
  completionTimeoutPerGiB: number;
  unsafeMigrationOverride: boolean;
  allowAutoConverge: boolean;
  allowPostCopy: boolean;
  /** Further fields of the CR (network, disableTLS, ...), kept as written. */
  [field: string]: unknown;
}

const DEFAULTS: MigrationConfiguration = {
  parallelMigrationsPerCluster: 5,
  parallelOutboundMigrationsPerNode: 2,
  nodeDrainTaintKey: 'kubevirt.io/drain',
  bandwidthPerMigration: '0Mi',
  progressTimeout: 150,
  completionTimeoutPerGiB: 150,
  unsafeMigrationOverride: false,
  allowAutoConverge: false,
  allowPostCopy: false,
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The defaults with every field the CR sets (null or absent fields keep the default). */
export function migrationConfigurationOf(kv: KubeVirt | undefined): MigrationConfiguration {
  const raw: unknown = kv?.spec.configuration?.migrations;
  const out: MigrationConfiguration = { ...DEFAULTS };
  if (!isRecord(raw)) return out;
  for (const [k, v] of Object.entries(raw)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}
