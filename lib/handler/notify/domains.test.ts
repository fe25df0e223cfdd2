import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { runController } from '../../kernel/controller/runner.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { WorkQueue } from '../../kernel/workqueue/queue.ts';
import type { DomainJson } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { domainEventEnqueuer, NotifiedDomains } from './domains.ts';

describe('NotifiedDomains', () => {
  it('answers with the last domain reported once it stopped, and only then', () => {
    const d = new NotifiedDomains();
    d.note('u', testDomain('Running', 'Booted'));
    expect(d.stopped('u')).toBeUndefined();
    d.note('u', testDomain('Shutoff', 'Shutdown'));
    expect(d.stopped('u')?.Status).toMatchObject({ Status: 'Shutoff', Reason: 'Shutdown' });
    d.note('u', testDomain('Running', 'Booted'));
    expect(d.stopped('u')).toBeUndefined();
  });

  it('ignores what is not a domain, and forgets', () => {
    const d = new NotifiedDomains();
    d.note('u', testDomain('Crashed', 'Panicked'));
    d.note('u', undefined);
    d.note('u', { kind: 'Pod' });
    expect(d.stopped('u')?.Status.Status).toBe('Crashed');
    d.forget('u');
    expect(d.stopped('u')).toBeUndefined();
  });
});

describe('NotifiedDomains cap', () => {
  it('holds at most cap domains, the one noted longest ago going first', () => {
    const d = new NotifiedDomains(3);
    for (const uid of ['a', 'b', 'c', 'd']) d.note(uid, testDomain('Shutoff', 'Shutdown'));
    expect(d.uids()).toEqual(['b', 'c', 'd']);
    // A new note of a held uid makes it the newest.
    d.note('b', testDomain('Shutoff', 'Shutdown'));
    d.note('e', testDomain('Shutoff', 'Shutdown'));
    expect(d.uids()).toEqual(['d', 'b', 'e']);
    expect(d.stopped('c')).toBeUndefined();
    expect(d.stopped('e')?.Status.Status).toBe('Shutoff');
  });
});

describe('NotifiedDomains.note', () => {
  it('says whether the domain is news for the VMI', () => {
    const d = new NotifiedDomains();
    const news = (uid: string, domain: unknown): boolean => d.note(uid, domain);
    const withOs = (x: DomainJson): void => {
      x.Status.OSInfo.Name = 'debian';
    };
    expect(news('u', testDomain('Shutoff', 'Unknown'))).toBe(true);
    // The same domain again, as a new object (each event is decoded anew).
    expect(news('u', testDomain('Shutoff', 'Unknown'))).toBe(false);
    expect(news('w', testDomain('Shutoff', 'Unknown'))).toBe(true);
    expect(news('u', testDomain('Shutoff', 'Failed'))).toBe(true);
    expect(news('u', testDomain('Shutoff', 'Failed', withOs))).toBe(true);
    expect(news('u', testDomain('Shutoff', 'Failed', withOs))).toBe(false);
    expect(news('u', { kind: 'Pod' })).toBe(true);
    d.forget('u');
    expect(news('u', testDomain('Shutoff', 'Failed', withOs))).toBe(true);
  });
});

const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { namespace: 'ns', name: 'v', uid: 'u' },
  spec: { domain: { devices: {} } },
} as VirtualMachineInstance;

/** Lets the workers and the launcher's replies run (a few event-loop turns; no wall-clock time is waited on). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
};

const LAUNCHER_REPORTS = 1000;

/**
 * The handler's queue and Notify wiring around a VMI whose SyncVirtualMachine always fails: like the launcher,
 * each failed sync defines the domain again and reports it (`domain`, as it is then) over Notify once the call
 * has returned. The launcher stops reporting after LAUNCHER_REPORTS syncs, so a flood ends.
 */
function failingSync(): {
  clock: FakeClock;
  at: number[];
  domain: DomainJson;
  report: () => void;
  stop: () => Promise<void>;
} {
  const clock = new FakeClock();
  const start = clock.now();
  const queue = new WorkQueue<string>({ name: 'virt-handler-vm', clock });
  const domainEvent = domainEventEnqueuer(new NotifiedDomains(), queue.add.bind(queue));
  const at: number[] = [];
  const ac = new AbortController();
  const done = runController({
    name: 'virt-handler-vm',
    queue,
    workers: 1,
    log: nopLogger,
    signal: ac.signal,
    reconcile: (key) => {
      at.push(clock.now() - start);
      if (key === 'ns/v' && at.length <= LAUNCHER_REPORTS)
        setImmediate(() => {
          h.report();
        });
      return Promise.reject(new KvError('KV_ERR_LAUNCHER', 'SyncVirtualMachine: the domain is refused'));
    },
  });
  queue.add('ns/v');
  const h = {
    clock,
    at,
    domain: testDomain('Shutoff', 'Failed'),
    report: (): void => {
      // Decoded anew from each event: never the same object.
      domainEvent(vmi, 'MODIFIED', structuredClone(h.domain));
    },
    stop: async (): Promise<void> => {
      ac.abort();
      await done;
    },
  };
  return h;
}

/** Advances the fake clock by ms in steps of 5 ms (the backoff's base), letting everything run after each. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 5) {
    clock.advance(5);
    await settle();
  }
}

describe('domainEventEnqueuer', () => {
  it('lets a sync that fails on and on back off, though each failure makes the launcher report its domain', async () => {
    const h = failingSync();
    await settle();
    await advance(h.clock, 10_000);
    await h.stop();
    // The first report is news and looks again at once; then the queue's backoff alone: 5 ms doubling per
    // failure (a pending retry keeps its earlier time), nothing in between.
    expect(h.at).toEqual([0, 0, 5, 25, 65, 145, 305, 625, 1265, 2545, 5105]);
  });

  it('wakes the VMI at once, backoff or not, when the launcher reports a domain that changed', async () => {
    const h = failingSync();
    await settle();
    await advance(h.clock, 3_000);
    expect(h.at).toHaveLength(10);
    // Backing off until 5105 ms: a new state is looked at now (the launcher reports it again after that sync);
    // a repeat of it is not.
    h.domain = testDomain('Running', 'Booted');
    h.report();
    await settle();
    expect(h.at.slice(9)).toEqual([2545, 3000]);
    h.report();
    await advance(h.clock, 2_000);
    expect(h.at.slice(9)).toEqual([2545, 3000]);
    await advance(h.clock, 200);
    expect(h.at.slice(9)).toEqual([2545, 3000, 5105]);
    await h.stop();
  });
});
