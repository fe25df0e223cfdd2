/**
 * Procedures that need the QEMU guest agent (qemu-ga on the org.qemu.guest_agent.0 channel): a raw agent
 * command (QEMU program), filesystem freeze/thaw, guest info. Without a connected agent libvirt answers
 * VIR_ERR_AGENT_UNRESPONSIVE (86).
 */
import type { LibvirtConnection } from './connection.ts';
import { AGENT_RESPONSE_TIMEOUT } from './constants.ts';
import { toWire, type DomainRef } from './domain-ref.ts';
import { PROC } from './procedures.ts';
import { typedParamsToRecord, type TypedValue } from './typed-params.ts';

/**
 * Sends one agent command (JSON text or a value to serialise, e.g. { execute: 'guest-ping' }) and resolves
 * the agent's raw JSON answer (null when it sends none). timeoutSeconds: AGENT_RESPONSE_TIMEOUT or seconds.
 */
export async function agentCommand(
  conn: LibvirtConnection,
  dom: DomainRef,
  command: string | object,
  o: { timeoutSeconds?: number } = {},
): Promise<string | null> {
  const cmd = typeof command === 'string' ? command : JSON.stringify(command);
  const timeout = o.timeoutSeconds ?? AGENT_RESPONSE_TIMEOUT.DEFAULT;
  const r = await conn.call(PROC.qemuDomainAgentCommand, { dom: toWire(dom), cmd, timeout, flags: 0 });
  return r.result;
}

/** Freezes the guest's filesystems (all when mountpoints is empty); resolves how many were frozen. */
export async function fsFreeze(
  conn: LibvirtConnection,
  dom: DomainRef,
  mountpoints: string[] = [],
): Promise<number> {
  return (await conn.call(PROC.domainFsFreeze, { dom: toWire(dom), mountpoints, flags: 0 })).filesystems;
}

/** Thaws the guest's filesystems; resolves how many were thawed. */
export async function fsThaw(
  conn: LibvirtConnection,
  dom: DomainRef,
  mountpoints: string[] = [],
): Promise<number> {
  return (await conn.call(PROC.domainFsThaw, { dom: toWire(dom), mountpoints, flags: 0 })).filesystems;
}

/**
 * Guest information from the agent as libvirt's flat typed parameters ('os.id', 'hostname', 'fs.0.name',
 * 'user.count', ...). types: GUEST_INFO bits, 0 for all.
 */
export async function getGuestInfo(
  conn: LibvirtConnection,
  dom: DomainRef,
  types = 0,
): Promise<Record<string, TypedValue>> {
  const r = await conn.call(PROC.domainGetGuestInfo, { dom: toWire(dom), types, flags: 0 });
  return typedParamsToRecord(r.params);
}
