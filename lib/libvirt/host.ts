/**
 * Connection-level procedures: versions, host and domain capabilities (XML), domain lookup and listing.
 */
import type { LibvirtConnection } from './connection.ts';
import { LIST_DOMAINS } from './constants.ts';
import { fromWire, uuidToBytes, type DomainRef } from './domain-ref.ts';
import { PROC } from './procedures.ts';

export interface Version {
  major: number;
  minor: number;
  release: number;
  /** '7.2.22' */
  text: string;
}

/** libvirt packs versions as major * 1,000,000 + minor * 1,000 + release. */
export function unpackVersion(packed: bigint | number): Version {
  const n = Number(packed);
  const major = Math.floor(n / 1_000_000);
  const minor = Math.floor(n / 1000) % 1000;
  const release = n % 1000;
  return { major, minor, release, text: `${major}.${minor}.${release}` };
}

/** The hypervisor's version (QEMU's, for the qemu driver). */
export async function getVersion(conn: LibvirtConnection): Promise<Version> {
  return unpackVersion((await conn.call(PROC.connectGetVersion, undefined)).hvVer);
}

/** The libvirt daemon's version. */
export async function getLibVersion(conn: LibvirtConnection): Promise<Version> {
  return unpackVersion((await conn.call(PROC.connectGetLibVersion, undefined)).libVer);
}

export async function getHostname(conn: LibvirtConnection): Promise<string> {
  return (await conn.call(PROC.connectGetHostname, undefined)).hostname;
}

/** The host capabilities XML (<capabilities>). */
export async function getCapabilities(conn: LibvirtConnection): Promise<string> {
  return (await conn.call(PROC.connectGetCapabilities, undefined)).capabilities;
}

export interface DomainCapabilitiesQuery {
  emulator?: string;
  arch?: string;
  machine?: string;
  /** 'kvm' or 'qemu' (TCG). */
  virtType?: string;
}

/** The domain capabilities XML (<domainCapabilities>) for that emulator/arch/machine/virt type. */
export async function getDomainCapabilities(
  conn: LibvirtConnection,
  domainCapabilitiesQuery: DomainCapabilitiesQuery = {},
): Promise<string> {
  const r = await conn.call(PROC.connectGetDomainCapabilities, {
    emulatorbin: domainCapabilitiesQuery.emulator ?? null,
    arch: domainCapabilitiesQuery.arch ?? null,
    machine: domainCapabilitiesQuery.machine ?? null,
    virttype: domainCapabilitiesQuery.virtType ?? null,
    flags: 0,
  });
  return r.capabilities;
}

export async function lookupDomainByName(conn: LibvirtConnection, name: string): Promise<DomainRef> {
  return fromWire((await conn.call(PROC.domainLookupByName, { name })).dom);
}

export async function lookupDomainByUuid(conn: LibvirtConnection, uuid: string): Promise<DomainRef> {
  return fromWire((await conn.call(PROC.domainLookupByUuid, { uuid: uuidToBytes(uuid) })).dom);
}

/** Domains matching flags from LIST_DOMAINS (0: all, active and inactive). */
export async function listDomains(conn: LibvirtConnection, flags = 0): Promise<DomainRef[]> {
  const r = await conn.call(PROC.connectListAllDomains, { needResults: 1, flags });
  return r.domains.map(fromWire);
}

export const listActiveDomains = (conn: LibvirtConnection): Promise<DomainRef[]> =>
  listDomains(conn, LIST_DOMAINS.ACTIVE);
