/**
 * A domain as callers hold it: name, UUID (canonical text) and id (-1 while the domain is not running).
 * On the wire the UUID is 16 raw bytes (remote_nonnull_domain); libvirt finds the domain by UUID.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { WireDomain } from './procedures.ts';

export interface DomainRef {
  readonly name: string;
  readonly uuid: string;
  readonly id: number;
}

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export function uuidToBytes(uuid: string): Uint8Array {
  if (!UUID_RE.test(uuid)) throw new KvError('KV_ERR_INTERNAL', `not a UUID: ${JSON.stringify(uuid)}`);
  return Uint8Array.from(Buffer.from(uuid.replaceAll('-', ''), 'hex'));
}

export function uuidFromBytes(b: Uint8Array): string {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export const fromWire = (d: WireDomain): DomainRef => ({
  name: d.name,
  uuid: uuidFromBytes(d.uuid),
  id: d.id,
});
export const toWire = (d: DomainRef): WireDomain => ({ name: d.name, uuid: uuidToBytes(d.uuid), id: d.id });
