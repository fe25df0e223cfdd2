/**
 * Domain event subscriptions on one connection (CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY per event kind).
 * The daemon tags each event with the callback id it returned; events are delivered to the subscription
 * owning that id, in arrival order. An event may arrive before the reply that tells us its callback id:
 * while a registration is in flight such events are held, then delivered once the id is known.
 */
import { nopLogger, type Logger } from '../kernel/log/log.ts';
import type { LibvirtConnection } from './connection.ts';
import { toWire, type DomainRef } from './domain-ref.ts';
import { EVENT_KINDS, type DecodedEvent, type DomainEvent, type DomainEventKind } from './events.ts';
import { PROC } from './procedures.ts';
import { REMOTE_PROGRAM } from './protocol.ts';

export type DomainEventHandler = (event: DomainEvent) => void;

export interface EventSubscription {
  /** Deregisters every callback of this subscription (best effort when the connection is gone). */
  close(): Promise<void>;
}

export class DomainEventHub {
  private readonly routes = new Map<number, DomainEventHandler>();
  private readonly listening = new Set<DomainEventKind>();
  private registering = 0;
  private held: DecodedEvent[] = [];

  constructor(
    private readonly conn: LibvirtConnection,
    private readonly log: Logger = nopLogger,
  ) {}

  /** Registers for the given kinds (all domains, or only `domain`); handler sees them in arrival order. */
  async subscribe(
    kinds: readonly DomainEventKind[],
    handler: DomainEventHandler,
    o: { domain?: DomainRef } = {},
  ): Promise<EventSubscription> {
    const ids: number[] = [];
    const close = async (): Promise<void> => {
      for (const id of ids.splice(0)) {
        this.routes.delete(id);
        if (this.conn.isOpen)
          await this.conn.call(PROC.connectDomainEventCallbackDeregisterAny, { callbackID: id });
      }
    };
    try {
      for (const kind of kinds) ids.push(await this.register(kind, handler, o.domain));
    } catch (err) {
      await close().catch(() => undefined);
      throw err;
    }
    return { close };
  }

  private async register(
    kind: DomainEventKind,
    handler: DomainEventHandler,
    domain?: DomainRef,
  ): Promise<number> {
    this.listen(kind);
    this.registering++;
    try {
      const { callbackID } = await this.conn.call(PROC.connectDomainEventCallbackRegisterAny, {
        eventID: EVENT_KINDS[kind].eventId,
        dom: domain === undefined ? null : toWire(domain),
      });
      this.routes.set(callbackID, handler);
      return callbackID;
    } finally {
      this.registering--;
      this.flushHeld();
    }
  }

  private listen(kind: DomainEventKind): void {
    if (this.listening.has(kind)) return;
    this.listening.add(kind);
    const spec = EVENT_KINDS[kind];
    this.conn.onMessage(REMOTE_PROGRAM, spec.procedure, (payload) => {
      this.route(spec.decode(payload));
    });
  }

  private route(decodedEvent: DecodedEvent): void {
    const handler = this.routes.get(decodedEvent.callbackID);
    if (handler !== undefined && this.held.length === 0) {
      this.deliver(handler, decodedEvent.event);
      return;
    }
    if (handler !== undefined || this.registering > 0) {
      this.held.push(decodedEvent);
      this.flushHeld();
      return;
    }
    this.log
      .v(3)
      .info('libvirt event for no subscription dropped', { callbackID: decodedEvent.callbackID, kind: decodedEvent.event.kind });
  }

  /** Delivers held events in order, up to the first one whose callback id is still unknown. */
  private flushHeld(): void {
    while (this.held.length > 0) {
      const next = this.held[0];
      if (next === undefined) return;
      const handler = this.routes.get(next.callbackID);
      if (handler === undefined && this.registering > 0) return;
      this.held.shift();
      if (handler !== undefined) this.deliver(handler, next.event);
    }
  }

  private deliver(handler: DomainEventHandler, event: DomainEvent): void {
    try {
      handler(event);
    } catch (err) {
      this.log.error('libvirt event handler failed', { kind: event.kind, reason: err });
    }
  }
}
