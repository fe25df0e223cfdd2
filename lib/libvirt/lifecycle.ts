/**
 * Domain lifecycle procedures with typed results: define/undefine, create (optionally paused), destroy,
 * shutdown, reboot, reset, suspend/resume, state with reason, XML description, device attach/detach.
 * Failures reject with LibvirtError (libvirt's code, domain and message).
 */
import type { CallOptions, LibvirtConnection } from './connection.ts';
import {
  DOMAIN_AFFECT,
  DOMAIN_DEFINE,
  DOMAIN_DESTROY,
  DOMAIN_START,
  DOMAIN_STATE_REASONS,
  DOMAIN_STATES,
  type DomainStateName,
} from './constants.ts';
import { fromWire, toWire, type DomainRef } from './domain-ref.ts';
import { PROC } from './procedures.ts';

export interface DomainState {
  state: DomainStateName | 'unknown';
  /** The reason for that state: 'booted', 'unpaused', 'user', 'destroyed', 'starting_up', ... */
  reason: string;
  stateCode: number;
  reasonCode: number;
}

/** Where a device change applies: the running domain, its persistent config, or both (neither: current). */
export interface DeviceScope {
  live?: boolean;
  config?: boolean;
}

const scopeFlags = (s: DeviceScope): number =>
  (s.live === true ? DOMAIN_AFFECT.LIVE : 0) | (s.config === true ? DOMAIN_AFFECT.CONFIG : 0);

export async function defineDomain(
  conn: LibvirtConnection,
  xml: string,
  o: { validate?: boolean } & CallOptions = {},
): Promise<DomainRef> {
  const flags = o.validate === true ? DOMAIN_DEFINE.VALIDATE : 0;
  return fromWire((await conn.call(PROC.domainDefineXmlFlags, { xml, flags }, o)).dom);
}

/** Removes a defined domain's configuration; flags from DOMAIN_UNDEFINE (e.g. NVRAM). */
export async function undefineDomain(conn: LibvirtConnection, dom: DomainRef, flags = 0): Promise<void> {
  await conn.call(PROC.domainUndefineFlags, { dom: toWire(dom), flags });
}

/** Starts a defined domain; with paused its vCPUs wait for resumeDomain. Resolves the domain with its id. */
export async function createDomain(
  conn: LibvirtConnection,
  dom: DomainRef,
  o: { paused?: boolean } & CallOptions = {},
): Promise<DomainRef> {
  const flags = o.paused === true ? DOMAIN_START.PAUSED : 0;
  return fromWire((await conn.call(PROC.domainCreateWithFlags, { dom: toWire(dom), flags }, o)).dom);
}

/** Stops the domain at once; graceful only sends SIGTERM to QEMU (no SIGKILL). */
export async function destroyDomain(
  conn: LibvirtConnection,
  dom: DomainRef,
  o: { graceful?: boolean } & CallOptions = {},
): Promise<void> {
  const flags = o.graceful === true ? DOMAIN_DESTROY.GRACEFUL : DOMAIN_DESTROY.DEFAULT;
  await conn.call(PROC.domainDestroyFlags, { dom: toWire(dom), flags }, o);
}

/** Asks the guest to shut down; flags from DOMAIN_SHUTDOWN (0: hypervisor's choice, ACPI here). */
export async function shutdownDomain(conn: LibvirtConnection, dom: DomainRef, flags = 0): Promise<void> {
  await conn.call(PROC.domainShutdownFlags, { dom: toWire(dom), flags });
}

/** Asks the guest to reboot; flags from DOMAIN_REBOOT. */
export async function rebootDomain(conn: LibvirtConnection, dom: DomainRef, flags = 0): Promise<void> {
  await conn.call(PROC.domainReboot, { dom: toWire(dom), flags });
}

/** Resets the virtual machine at once, as the reset button would. */
export async function resetDomain(conn: LibvirtConnection, dom: DomainRef): Promise<void> {
  await conn.call(PROC.domainReset, { dom: toWire(dom), flags: 0 });
}

export async function suspendDomain(conn: LibvirtConnection, dom: DomainRef): Promise<void> {
  await conn.call(PROC.domainSuspend, { dom: toWire(dom) });
}

export async function resumeDomain(conn: LibvirtConnection, dom: DomainRef): Promise<void> {
  await conn.call(PROC.domainResume, { dom: toWire(dom) });
}

/** Names a (state, reason) pair from DOMAIN_GET_STATE or domain stats. */
export function describeState(stateCode: number, reasonCode: number): DomainState {
  const state = DOMAIN_STATES[stateCode] ?? 'unknown';
  const reasons = state === 'unknown' ? [] : DOMAIN_STATE_REASONS[state];
  return { state, reason: reasons[reasonCode] ?? 'unknown', stateCode, reasonCode };
}

export async function getDomainState(conn: LibvirtConnection, dom: DomainRef): Promise<DomainState> {
  const r = await conn.call(PROC.domainGetState, { dom: toWire(dom), flags: 0 });
  return describeState(r.state, r.reason);
}

/** The domain XML; flags from DOMAIN_XML (INACTIVE: the persistent definition, SECURE: with secrets). */
export async function getDomainXml(conn: LibvirtConnection, dom: DomainRef, flags = 0): Promise<string> {
  return (await conn.call(PROC.domainGetXmlDesc, { dom: toWire(dom), flags })).xml;
}

export async function attachDevice(
  conn: LibvirtConnection,
  dom: DomainRef,
  xml: string,
  scope: DeviceScope = { live: true },
): Promise<void> {
  await conn.call(PROC.domainAttachDeviceFlags, { dom: toWire(dom), xml, flags: scopeFlags(scope) });
}

/**
 * Asks for the device's removal. For a live detach the guest may take its time: the device is gone when
 * the 'device-removed' event arrives.
 */
export async function detachDevice(
  conn: LibvirtConnection,
  dom: DomainRef,
  xml: string,
  scope: DeviceScope = { live: true },
): Promise<void> {
  await conn.call(PROC.domainDetachDeviceFlags, { dom: toWire(dom), xml, flags: scopeFlags(scope) });
}

/** Detaches by device alias (e.g. 'ua-disk1'); always asynchronous for live domains. */
export async function detachDeviceByAlias(
  conn: LibvirtConnection,
  dom: DomainRef,
  alias: string,
  scope: DeviceScope = { live: true },
): Promise<void> {
  await conn.call(PROC.domainDetachDeviceAlias, { dom: toWire(dom), alias, flags: scopeFlags(scope) });
}

/**
 * Changes a device in place (a virtio-mem device's requested size, a CD-ROM's medium); libvirt finds the
 * device by its alias or address in xml.
 */
export async function updateDevice(
  conn: LibvirtConnection,
  dom: DomainRef,
  xml: string,
  scope: DeviceScope = { live: true },
): Promise<void> {
  await conn.call(PROC.domainUpdateDeviceFlags, { dom: toWire(dom), xml, flags: scopeFlags(scope) });
}
