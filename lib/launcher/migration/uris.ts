/**
 * Where a source migration goes (kubevirt live-migration-source.go migrateHelper, generateMigrationParams): the
 * destination libvirt through the proxy socket `<uid>-source.sock` (a session daemon: qemu+unix:///session),
 * QEMU's stream through `<uid>-49152-source.sock` (KubeVirt's unix transport), copied disks through
 * `<uid>-49153-source.sock` (the destination's NBD server); and the domain XML the target
 * defines, with the source Pod's root moved to the target Pod's where the two differ. Pure.
 */
import {
  LIBVIRT_BLOCK_MIGRATION_PORT,
  LIBVIRT_DIRECT_MIGRATION_PORT,
  type PodLayout,
} from '../../rpc/index.ts';

export function destinationUris(
  layout: PodLayout,
  vmiUid: string,
): { dconnuri: string; migrateUri: string; disksUri: string } {
  return {
    dconnuri: `qemu+unix:///session?socket=${layout.migrationSocket(vmiUid, 0)}`,
    migrateUri: `unix://${layout.migrationSocket(vmiUid, LIBVIRT_DIRECT_MIGRATION_PORT)}`,
    disksUri: `unix://${layout.migrationSocket(vmiUid, LIBVIRT_BLOCK_MIGRATION_PORT)}`,
  };
}

/**
 * The domain XML for the target: every path below the source root becomes the same path below the target
 * root. In a Pod both roots are "/" and nothing changes.
 */
export function retargetXml(xml: string, sourceRoot: string, targetRoot: string | undefined): string {
  if (targetRoot === undefined || targetRoot === sourceRoot || sourceRoot === '/') return xml;
  const from = sourceRoot.endsWith('/') ? sourceRoot : `${sourceRoot}/`;
  const to = targetRoot.endsWith('/') ? targetRoot : `${targetRoot}/`;
  return xml.replaceAll(from, to);
}
