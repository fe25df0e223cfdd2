/**
 * The notifier against a real Notify server on a unix socket, with a fake domain manager and event hub: a
 * handler that is away (its socket accepts and never answers) while 10,000 domain events arrive.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Server } from '@grpc/grpc-js';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nopLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import type { DomainEvent as LibvirtEvent, DomainEventHandler, DomainRef } from '../libvirt/index.ts';
import {
  decodeDomainEvent,
  listenUnix,
  newNotifyServer,
  shutdownServer,
  type DomainEvent,
} from '../rpc/index.ts';
import { DomainNotifier, type NotifierOptions } from './notifier.ts';
import type { KubevirtState } from './report/state.ts';

const NAME = 'default_vm';
const REF: DomainRef = { name: NAME, uuid: '0c6f3d52-8a41-4e7b-9d1f-2b3c4d5e6f70', id: 1 };

/** A domain manager whose domain reports the number of the last event the test made. */
class FakeManager {
  readonly domainName = NAME;
  reads = 0;
  version = 0;
  /** Each lifecycle event passed on, as `event/detail` (a migration target watches for its guest's arrival). */
  readonly lifecycles: string[] = [];
  noteAgentState(): void {
    // not needed here
  }
  noteLifecycle(event: string, detail: string): void {
    this.lifecycles.push(`${event}/${detail}`);
  }
  kubevirtState(): Promise<KubevirtState> {
    this.reads++;
    return Promise.resolve({ status: 'Running', reason: 'Unknown' });
  }
  domainJson(): Promise<never> {
    return Promise.resolve({ ObjectMeta: { uid: 'u' }, Status: { version: this.version } } as never);
  }
}

let dir = '';
let socket = '';
let handler: Server | undefined;
let stuck: NetServer | undefined;
const held: Socket[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-notifier-'));
  socket = join(dir, 'domain-notify.sock');
});

afterEach(async () => {
  for (const s of held.splice(0)) s.destroy();
  const hung = stuck;
  if (hung !== undefined) await new Promise((resolve) => hung.close(resolve));
  if (handler !== undefined) await shutdownServer(handler, 100);
  stuck = handler = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('DomainNotifier while the handler is away', () => {
  it('keeps only the newest event of the domain, and sends it once the handler is back', async () => {
    // Away: the socket accepts, nobody answers (a handler that hangs), so each send waits its deadline.
    stuck = createServer((c) => held.push(c));
    await new Promise<void>((resolve) => stuck?.listen(socket, resolve));
    const manager = new FakeManager();
    let emit: DomainEventHandler = () => undefined;
    const hub: NotifierOptions['hub'] = {
      subscribe: (_kinds, h) => {
        emit = h;
        return Promise.resolve({ close: () => Promise.resolve() });
      },
    };
    const notifier = new DomainNotifier({
      socketPath: socket,
      manager,
      hub,
      log: nopLogger,
      deadlineMs: 300,
    });
    await notifier.start();
    const event = (n: number): LibvirtEvent => ({
      kind: 'lifecycle',
      domain: REF,
      event: 'resumed',
      detail: 'unpaused',
      eventCode: 4,
      detailCode: n,
    });
    for (let n = 1; n <= 10_000; n++) {
      manager.version = n;
      emit(event(n));
      if (n % 1000 === 0) notifier.notifyCurrent();
    }
    expect(notifier.queued).toBeLessThanOrEqual(1);
    // Every event reached the manager, even those the queue dropped.
    expect(manager.lifecycles).toHaveLength(10_000);

    // The handler comes back (its socket renamed over the hung one's): the newest domain arrives, and not
    // 10,000 events.
    const got: DomainEvent[] = [];
    handler = newNotifyServer({
      handleDomainEvent: (req) => {
        got.push(decodeDomainEvent(req));
        return Promise.resolve({ success: true, message: '' });
      },
      handleK8SEvent: () => Promise.resolve({ success: true, message: '' }),
    });
    await listenUnix(handler, `${socket}.new`);
    await rename(`${socket}.new`, socket);
    const version = (e: DomainEvent): unknown => (e.domain as { Status: { version: number } }).Status.version;
    await waitFor(
      () => got.some((e) => version(e) === 10_000),
      () => `handler got ${got.length} events`,
    );
    await notifier.close();
    expect(got.length).toBeLessThanOrEqual(2);
    expect(manager.reads).toBeLessThanOrEqual(3);
  }, 60_000);
});
