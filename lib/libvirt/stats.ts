/**
 * Bulk domain statistics (CONNECT_GET_ALL_DOMAIN_STATS): one flat record per domain with libvirt's keys
 * ('state.state', 'cpu.time', 'balloon.current', 'vcpu.0.time', 'block.0.rd.bytes', 'net.0.rx.bytes', ...).
 */
import type { LibvirtConnection } from './connection.ts';
import { fromWire, toWire, type DomainRef } from './domain-ref.ts';
import { PROC } from './procedures.ts';
import { typedParamsToRecord, type TypedValue } from './typed-params.ts';

export interface DomainStats {
  domain: DomainRef;
  params: Record<string, TypedValue>;
}

export interface StatsQuery {
  /** Only these domains; all domains (filtered by flags) when absent. */
  domains?: readonly DomainRef[];
  /** DOMAIN_STATS bits; 0 asks for every group the driver supports. */
  stats?: number;
  /** GET_ALL_DOMAINS_STATS / LIST_DOMAINS bits. */
  flags?: number;
}

export async function getAllDomainStats(conn: LibvirtConnection, q: StatsQuery = {}): Promise<DomainStats[]> {
  const r = await conn.call(PROC.connectGetAllDomainStats, {
    doms: (q.domains ?? []).map(toWire),
    stats: q.stats ?? 0,
    flags: q.flags ?? 0,
  });
  return r.retStats.map((s) => ({ domain: fromWire(s.dom), params: typedParamsToRecord(s.params) }));
}
