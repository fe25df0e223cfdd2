/**
 * Live migration procedures (libvirt-domain.c virDomainMigrateToURI3 in its peer-to-peer form, which the
 * client turns into one DOMAIN_MIGRATE_PERFORM3_PARAMS call to the source daemon: that daemon opens dconnuri
 * itself and runs the whole protocol with the destination), and what a migration monitor needs beside it:
 * the job's statistics, abort, the bandwidth and downtime limits, the switch to post-copy.
 */
import type { CallOptions, LibvirtConnection } from './connection.ts';
import { DOMAIN_JOB_TYPES, type DomainJobType } from './constants.ts';
import { toWire, type DomainRef } from './domain-ref.ts';
import { PROC } from './procedures.ts';
import { toWireParam, typedParamsToRecord, type OutgoingParam, type TypedValue } from './typed-params.ts';

/** VIR_MIGRATE_PARAM_* field names and types (libvirt-domain.h). */
export interface MigrateParams {
  /** VIR_MIGRATE_PARAM_URI: where QEMU sends the guest's state (tcp://, unix://). */
  readonly migrateUri?: string;
  /** VIR_MIGRATE_PARAM_DEST_XML: the domain as the destination defines it. */
  readonly destXml?: string;
  /** VIR_MIGRATE_PARAM_PERSIST_XML: the persistent definition there (with PERSIST_DEST). */
  readonly persistXml?: string;
  readonly destName?: string;
  /** VIR_MIGRATE_PARAM_BANDWIDTH in MiB/s; 0 is unlimited. */
  readonly bandwidthMiB?: number;
  readonly parallelConnections?: number;
  /**
   * VIR_MIGRATE_PARAM_MIGRATE_DISKS: the target devices (vda, ...) of the disks to copy with NON_SHARED_INC,
   * one repeated string parameter each.
   */
  readonly migrateDisks?: readonly string[];
  /** VIR_MIGRATE_PARAM_DISKS_URI: where the destination's NBD server takes the copies (unix://, tcp://). */
  readonly disksUri?: string;
}

export function migrateParams(p: MigrateParams): OutgoingParam[] {
  const out: OutgoingParam[] = [];
  if (p.migrateUri !== undefined) out.push({ field: 'migrate_uri', type: 'string', value: p.migrateUri });
  if (p.destXml !== undefined) out.push({ field: 'destination_xml', type: 'string', value: p.destXml });
  if (p.persistXml !== undefined) out.push({ field: 'persistent_xml', type: 'string', value: p.persistXml });
  if (p.destName !== undefined) out.push({ field: 'destination_name', type: 'string', value: p.destName });
  if (p.bandwidthMiB !== undefined && p.bandwidthMiB > 0)
    out.push({ field: 'bandwidth', type: 'ullong', value: p.bandwidthMiB });
  if (p.parallelConnections !== undefined)
    out.push({ field: 'parallel.connections', type: 'int', value: p.parallelConnections });
  for (const dev of p.migrateDisks ?? []) out.push({ field: 'migrate_disks', type: 'string', value: dev });
  if (p.disksUri !== undefined) out.push({ field: 'disks_uri', type: 'string', value: p.disksUri });
  return out;
}

/**
 * Runs a peer-to-peer migration to the daemon at dconnuri; resolves once the guest runs there (or rejects
 * with libvirt's reason: aborted, failed, refused). flags from MIGRATE (PEER2PEER among them).
 */
export async function migratePeerToPeer(
  conn: LibvirtConnection,
  dom: DomainRef,
  o: { dconnuri: string; params: MigrateParams; flags: number } & CallOptions,
): Promise<void> {
  await conn.call(
    PROC.domainMigratePerform3Params,
    {
      dom: toWire(dom),
      dconnuri: o.dconnuri,
      params: migrateParams(o.params).map(toWireParam),
      cookieIn: new Uint8Array(0),
      flags: o.flags,
    },
    o,
  );
}

export interface JobStats {
  type: DomainJobType | 'unknown';
  /** libvirt's VIR_DOMAIN_JOB_* fields: 'time_elapsed', 'data_remaining', 'memory_iteration', ... */
  params: Record<string, TypedValue>;
}

/** The domain's current job; flags from DOMAIN_JOB_STATS (0: the running job). */
export async function getJobStats(conn: LibvirtConnection, dom: DomainRef, flags = 0): Promise<JobStats> {
  const r = await conn.call(PROC.domainGetJobStats, { dom: toWire(dom), flags });
  return { type: DOMAIN_JOB_TYPES[r.type] ?? 'unknown', params: typedParamsToRecord(r.params) };
}

/** Aborts the domain's running job (a migration fails with 'operation aborted'). */
export async function abortJob(conn: LibvirtConnection, dom: DomainRef): Promise<void> {
  await conn.call(PROC.domainAbortJob, { dom: toWire(dom) });
}

/** The migration's bandwidth limit in MiB/s, also while it runs. */
export async function setMigrateMaxSpeed(
  conn: LibvirtConnection,
  dom: DomainRef,
  mibPerSecond: number,
): Promise<void> {
  await conn.call(PROC.domainMigrateSetMaxSpeed, {
    dom: toWire(dom),
    bandwidth: BigInt(mibPerSecond),
    flags: 0,
  });
}

/** The pause the migration may end with, in milliseconds. */
export async function setMigrateMaxDowntime(
  conn: LibvirtConnection,
  dom: DomainRef,
  ms: number,
): Promise<void> {
  await conn.call(PROC.domainMigrateSetMaxDowntime, { dom: toWire(dom), downtime: BigInt(ms), flags: 0 });
}

/** Switches a running migration started with POSTCOPY to post-copy. */
export async function startPostCopy(conn: LibvirtConnection, dom: DomainRef): Promise<void> {
  await conn.call(PROC.domainMigrateStartPostCopy, { dom: toWire(dom), flags: 0 });
}
