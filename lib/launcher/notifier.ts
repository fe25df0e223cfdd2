/**
 * Domain events to the handler (kubevirt pkg/virt-launcher/notify-client): every libvirt lifecycle, agent
 * lifecycle or device-removed event of our domain is turned into the current api.Domain (state read back from
 * libvirt) and sent on the handler's Notify socket as ADDED / MODIFIED / DELETED, one at a time and in
 * order. The handler may not listen yet, or may restart: the client is (re)connected on demand, and an event
 * that cannot be delivered after one reconnect is dropped with a warning (the handler also polls GetDomain).
 */
import type { Logger } from '../kernel/log/log.ts';
import type { DomainEvent, DomainEventHub, EventSubscription } from '../libvirt/index.ts';
import { newNotifyClient, type NotifyClient } from '../rpc/index.ts';
import { NON_EXISTENT, watchEventFor, type DomainWatchEvent } from './report/state.ts';
import type { DomainManager } from './manager.ts';

export interface NotifierOptions {
  readonly socketPath: string;
  readonly manager: DomainManager;
  readonly hub: DomainEventHub;
  readonly log: Logger;
  /** Freeze status for the domain's status ('' when unknown). */
  readonly fsFreezeStatus?: () => Promise<string>;
}

export class DomainNotifier {
  private client: NotifyClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  private sub: EventSubscription | undefined;
  private closed = false;
  /** Events delivered so far (for logs and tests). */
  sent = 0;

  constructor(private readonly o: NotifierOptions) {}

  async start(): Promise<void> {
    this.sub = await this.o.hub.subscribe(['lifecycle', 'agent-lifecycle', 'device-removed'], (e) => {
      this.onEvent(e);
    });
  }

  private onEvent(domainEvent: DomainEvent): void {
    if (this.closed || domainEvent.domain.name !== this.o.manager.domainName) return;
    if (domainEvent.kind === 'agent-lifecycle')
      this.o.manager.noteAgentState(domainEvent.state === 'connected');
    const lifecycle =
      domainEvent.kind === 'lifecycle'
        ? { event: domainEvent.event, detail: domainEvent.detail }
        : { event: domainEvent.kind, detail: '' };
    this.o.log.v(2).info('domain event', { kind: domainEvent.kind, ...lifecycle });
    this.enqueue(async () => {
      const state = await this.o.manager.kubevirtState();
      const exists = state !== NON_EXISTENT;
      const fsFreezeStatus =
        exists && this.o.fsFreezeStatus !== undefined ? await this.o.fsFreezeStatus() : '';
      const domain = await this.o.manager.domainJson({ fsFreezeStatus }, state);
      await this.send(watchEventFor(lifecycle, exists), domain ?? {});
    });
  }

  /** Sends the current domain as MODIFIED (or DELETED when there is none), e.g. after a sync. */
  notifyCurrent(): void {
    this.enqueue(async () => {
      const state = await this.o.manager.kubevirtState();
      const domain = await this.o.manager.domainJson(undefined, state);
      await this.send(state === NON_EXISTENT ? 'DELETED' : 'MODIFIED', domain ?? {});
    });
  }

  private enqueue(job: () => Promise<void>): void {
    this.queue = this.queue.then(job).catch((err: unknown) => {
      this.o.log.warning('domain event not delivered', { reason: err });
    });
  }

  private async connected(): Promise<NotifyClient> {
    this.client ??= await newNotifyClient(this.o.socketPath);
    return this.client;
  }

  private async send(eventType: DomainWatchEvent, domain: object): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const r = await (await this.connected()).sendDomainEvent({ domain, eventType });
        if (!r.success) this.o.log.warning('handler refused a domain event', { message: r.message });
        this.sent++;
        return;
      } catch (err) {
        this.client?.close();
        this.client = undefined;
        if (attempt === 1) throw err;
      }
    }
  }

  /** Waits for the events already queued, then stops listening. */
  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
    await this.sub?.close().catch(() => undefined);
    this.client?.close();
    this.client = undefined;
  }
}
