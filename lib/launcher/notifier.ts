/**
 * Domain events to the handler (kubevirt pkg/virt-launcher/notify-client): every libvirt lifecycle, agent
 * lifecycle or device-removed event of our domain is turned into the current api.Domain (state read back from
 * libvirt) and sent on the handler's Notify socket as ADDED / MODIFIED / DELETED, one at a time and in
 * order. The handler may not listen yet, or may restart: the client is (re)connected on demand, and an event
 * that cannot be delivered after one reconnect is dropped with a warning (the handler also polls GetDomain).
 * Since each event reports the domain as it is when sent, events that wait are coalesced: one send runs, and
 * per domain only the newest event waits behind it, so a handler that is away for long costs no memory
 * (KubeVirt bounds its queue at 10 and drops the newest instead). The launcher sends no Kubernetes events.
 */
import type { Logger } from '../kernel/log/log.ts';
import type { DomainEvent, DomainEventHub, EventSubscription } from '../libvirt/index.ts';
import { newNotifyClient, type NotifyClient } from '../rpc/index.ts';
import { NON_EXISTENT, watchEventFor, type DomainWatchEvent } from './report/state.ts';
import type { DomainManager } from './manager.ts';

export interface NotifierOptions {
  readonly socketPath: string;
  readonly manager: Pick<
    DomainManager,
    'domainName' | 'noteAgentState' | 'noteLifecycle' | 'kubevirtState' | 'domainJson'
  >;
  readonly hub: Pick<DomainEventHub, 'subscribe'>;
  readonly log: Logger;
  /** Freeze status for the domain's status ('' when unknown). */
  readonly fsFreezeStatus?: () => Promise<string>;
  /** Per-call deadline of the Notify client (its default: 5 s). */
  readonly deadlineMs?: number;
}

interface Lifecycle {
  readonly event: string;
  readonly detail: string;
}

/** What waits to be sent for a domain: the newest lifecycle event, or only "the current domain". */
interface Pending {
  readonly lifecycle: Lifecycle | undefined;
}

export class DomainNotifier {
  private client: NotifyClient | undefined;
  private readonly pending = new Map<string, Pending>();
  private draining: Promise<void> | undefined;
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
    if (domainEvent.kind === 'lifecycle') this.o.manager.noteLifecycle(lifecycle.event, lifecycle.detail);
    this.o.log.v(2).info('domain event', { kind: domainEvent.kind, ...lifecycle });
    this.enqueue(domainEvent.domain.name, { lifecycle });
  }

  /** Sends the current domain as MODIFIED (or DELETED when there is none), e.g. after a sync. */
  notifyCurrent(): void {
    const name = this.o.manager.domainName;
    // A waiting lifecycle event reports the current domain too, and later than now.
    this.enqueue(name, this.pending.get(name) ?? { lifecycle: undefined });
  }

  /** Events waiting behind the one being sent (at most one per domain). */
  get queued(): number {
    return this.pending.size;
  }

  private enqueue(domain: string, p: Pending): void {
    this.pending.delete(domain);
    this.pending.set(domain, p);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    for (
      let first = this.pending.entries().next();
      first.done !== true;
      first = this.pending.entries().next()
    ) {
      const [domain, p] = first.value;
      this.pending.delete(domain);
      try {
        await this.report(p);
      } catch (err) {
        this.o.log.warning('domain event not delivered', { reason: err });
      }
    }
    this.draining = undefined;
  }

  private async report(p: Pending): Promise<void> {
    const state = await this.o.manager.kubevirtState();
    const exists = state !== NON_EXISTENT;
    if (p.lifecycle === undefined) {
      const domain = await this.o.manager.domainJson(undefined, state);
      await this.send(exists ? 'MODIFIED' : 'DELETED', domain ?? {});
      return;
    }
    const fsFreezeStatus = exists && this.o.fsFreezeStatus !== undefined ? await this.o.fsFreezeStatus() : '';
    const domain = await this.o.manager.domainJson({ fsFreezeStatus }, state);
    await this.send(watchEventFor(p.lifecycle, exists), domain ?? {});
  }

  private async connected(): Promise<NotifyClient> {
    this.client ??= await newNotifyClient(
      this.o.socketPath,
      this.o.deadlineMs === undefined ? {} : { deadlineMs: this.o.deadlineMs },
    );
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
    while (this.draining !== undefined) await this.draining;
    this.closed = true;
    await this.sub?.close().catch(() => undefined);
    this.client?.close();
    this.client = undefined;
  }
}
