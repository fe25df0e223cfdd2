/**
 * A pure TypeScript libvirt client: libvirt's RPC protocol (XDR over the daemon's unix socket), no native
 * code. Open a LibvirtConnection, then call the procedure functions with it.
 */
export { LibvirtConnection } from './connection.ts';
export * from './constants.ts';
export { uuidToBytes, type DomainRef } from './domain-ref.ts';
export * from './lifecycle.ts';
export { VIR_ERR } from './error-codes.ts';
export { DomainEventHub, type DomainEventHandler, type EventSubscription } from './event-hub.ts';
export type { DomainEvent } from './events.ts';
export * from './guest.ts';
export * from './host.ts';
export { isLibvirtError, isNoDomain, LibvirtError } from './protocol.ts';
export * from './stats.ts';
export { getVcpus, setVcpus } from './vcpus.ts';
export type { TypedValue } from './typed-params.ts';
export * from './migration.ts';
