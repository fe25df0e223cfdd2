/**
 * The libvirt flags of a source migration (kubevirt live-migration-source.go generateMigrationFlags): always
 * live, peer to peer and persistent on the destination; incremental disk copy for a block migration; the
 * unsafe, auto-converge and post-copy switches from the options; paused when the guest is; parallel
 * connections when asked for (never with post-copy). Pure.
 */
import { MIGRATE } from '../../libvirt/index.ts';
import type { MigrationOptions } from './options.ts';

export interface FlagInputs {
  readonly blockMigration: boolean;
  readonly paused: boolean;
  readonly options: Pick<
    MigrationOptions,
    'unsafe' | 'allowAutoConverge' | 'allowPostCopy' | 'parallelThreads'
  >;
}

/** KubeVirt's shouldConfigureParallelMigration: the thread count, unless post-copy is allowed. */
export function parallelConnections(o: FlagInputs['options']): number | undefined {
  return o.allowPostCopy ? undefined : o.parallelThreads;
}

export function migrationFlags(i: FlagInputs): number {
  let f = MIGRATE.LIVE | MIGRATE.PEER2PEER | MIGRATE.PERSIST_DEST;
  if (i.blockMigration) f |= MIGRATE.NON_SHARED_INC;
  if (i.options.unsafe) f |= MIGRATE.UNSAFE;
  if (i.options.allowAutoConverge) f |= MIGRATE.AUTO_CONVERGE;
  if (i.options.allowPostCopy) f |= MIGRATE.POSTCOPY;
  if (i.paused) f |= MIGRATE.PAUSED;
  if (parallelConnections(i.options) !== undefined) f |= MIGRATE.PARALLEL;
  return f;
}
