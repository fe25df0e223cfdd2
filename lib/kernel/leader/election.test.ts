import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { FakeClock } from '../clock.ts';
import { memoryLogger, nopLogger } from '../log/log.ts';
import { LeaderElector } from './election.ts';
import { LEASES } from '../kube/resources.ts';
import { newLease } from './lease.ts';
import { FakeLeaseStore } from './testing/fake-leases.ts';
import { LOCK, NS, advance, startCandidate, storedLease } from './testing/harness.ts';

describe('LeaderElector', () => {
  it('creates the lease and leads when it is alone', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const registry = new Registry();
    const a = startCandidate(store, clock, 'a', { registry });
    await advance(clock, 0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started']);
    expect(storedLease(store)?.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: '2023-11-14T22:13:20.000000Z',
      renewTime: '2023-11-14T22:13:20.000000Z',
    });
    expect(await registry.getSingleMetricAsString('kubevirt_virt_controller_leading_status')).toMatch(
      /^kubevirt_virt_controller_leading_status 1$/m,
    );
    a.stop();
    await a.done;
  });

  it('renews every retry period while a second candidate waits', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const a = startCandidate(store, clock, 'a');
    await advance(clock, 0);
    const b = startCandidate(store, clock, 'b');
    await advance(clock, 60_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leader()).toBe('a');
    expect(b.events).toEqual(['leader:a']);
    const spec = storedLease(store)?.spec;
    expect(spec?.renewTime).toBe('2023-11-14T22:14:20.000000Z');
    expect(spec?.acquireTime).toBe('2023-11-14T22:13:20.000000Z');
    a.stop();
    b.stop();
    await Promise.all([a.done, b.done]);
  });

  it('takes over a lease only after seeing it unchanged for the lease duration, whatever its renewTime says', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    await store.client().create(
      LEASES,
      newLease(NS, LOCK, {
        holderIdentity: 'ghost',
        leaseDurationSeconds: 15,
        acquireTime: '2000-01-01T00:00:00.000000Z',
        renewTime: '2000-01-01T00:00:00.000000Z',
        leaseTransitions: 3,
      }),
    );
    const b = startCandidate(store, clock, 'b');
    await advance(clock, 14_000);
    expect(b.elector.isLeader()).toBe(false);
    await advance(clock, 2_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(storedLease(store)?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 4 });
    expect(b.events).toEqual(['leader:ghost', 'leader:b', 'started']);
    b.stop();
    await b.done;
  });

  it('fails over when the leader stops renewing, and the old leader steps down first', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const a = startCandidate(store, clock, 'a');
    await advance(clock, 0);
    let aLeadingWhenBStarted: boolean | undefined;
    const b = startCandidate(store, clock, 'b', {
      onStart: () => (aLeadingWhenBStarted = a.elector.isLeader()),
    });
    await advance(clock, 10_000);
    a.fault.mode = 'hang'; // a freezes: its requests never come back
    await advance(clock, 11_000);
    expect(b.elector.isLeader()).toBe(false);
    await advance(clock, 8_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(aLeadingWhenBStarted).toBe(false);
    expect(a.events).toEqual(['leader:a', 'started', 'work-aborted', 'stopped']);
    expect(storedLease(store)?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    a.stop();
    b.stop();
    await b.done;
  });

  it.each([['error' as const], ['hang' as const]])(
    'steps down when renewing fails (%s) for the renew deadline, then campaigns again',
    async (mode) => {
      const store = new FakeLeaseStore();
      const clock = new FakeClock();
      const registry = new Registry();
      const a = startCandidate(store, clock, 'a', { registry });
      await advance(clock, 4_000); // renewed at +2 s and +4 s
      a.fault.mode = mode;
      await advance(clock, 9_000);
      expect(a.elector.isLeader()).toBe(true);
      await advance(clock, 2_000);
      expect(a.elector.isLeader()).toBe(false);
      expect(a.events).toEqual(['leader:a', 'started', 'work-aborted', 'stopped']);
      expect(await registry.getSingleMetricAsString('kubevirt_virt_controller_leading_status')).toMatch(
        / 0$/m,
      );
      a.fault.mode = 'none';
      await advance(clock, 20_000);
      expect(a.elector.isLeader()).toBe(true);
      expect(a.events.slice(4)).toEqual(['started']);
      expect(storedLease(store)?.spec?.leaseTransitions).toBe(0);
      a.stop();
      await a.done;
    },
  );

  it('steps down at once when it reads another holder in the lease', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const a = startCandidate(store, clock, 'a');
    await advance(clock, 0);
    const lease = storedLease(store);
    if (!lease?.spec) throw new Error('no lease');
    await store.client().update(LEASES, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await advance(clock, 2_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual(['leader:a', 'started', 'leader:intruder', 'work-aborted', 'stopped']);
    a.stop();
    await a.done;
  });

  it('releases the lease on stop so the next candidate takes over at its next retry', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const { log, lines } = memoryLogger();
    const a = startCandidate(store, clock, 'a', { log });
    await advance(clock, 0);
    const b = startCandidate(store, clock, 'b');
    await advance(clock, 5_000);
    a.stop();
    await advance(clock, 0);
    await a.done;
    expect(a.events).toEqual(['leader:a', 'started', 'work-aborted', 'stopped']);
    expect(lines.filter((l) => l['msg'] === 'attempting to acquire leader lease')).toHaveLength(1);
    expect(storedLease(store)?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    await advance(clock, 2_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(storedLease(store)?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    b.stop();
    await b.done;
  });

  it('keeps the lease on stop without releaseOnCancel: the next leader waits out the lease', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const a = startCandidate(store, clock, 'a', { releaseOnCancel: false });
    await advance(clock, 0);
    const b = startCandidate(store, clock, 'b');
    a.stop();
    await a.done;
    await advance(clock, 12_000);
    expect(b.elector.isLeader()).toBe(false);
    await advance(clock, 6_000);
    expect(b.elector.isLeader()).toBe(true);
    b.stop();
    await b.done;
  });

  it('gives the lease up only after the leading work has returned', async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    const a = startCandidate(store, clock, 'a', { slowWork: true });
    await advance(clock, 0);
    a.stop();
    await advance(clock, 1_000);
    expect(a.events).toEqual(['leader:a', 'started', 'work-aborted']);
    expect(storedLease(store)?.spec?.holderIdentity).toBe('a');
    a.finishWork?.();
    await a.done;
    expect(storedLease(store)?.spec?.holderIdentity).toBe('');
    expect(a.events.at(-1)).toBe('stopped');
  });

  it.each([
    ['a fresh store (create races)', false],
    ['a released lease (update races)', true],
  ])('lets exactly one of two simultaneous candidates lead on %s', async (_name, released) => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock();
    if (released) {
      const stamp = '2023-11-14T22:00:00.000000Z';
      const rec = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: stamp,
        renewTime: stamp,
        leaseTransitions: 7,
      };
      await store.client().create(LEASES, newLease(NS, LOCK, rec));
    }
    const a = startCandidate(store, clock, 'a');
    const b = startCandidate(store, clock, 'b');
    await advance(clock, 30_000);
    const leaders = [a, b].filter((c) => c.elector.isLeader());
    expect(leaders).toHaveLength(1);
    expect(storedLease(store)?.spec?.leaseTransitions).toBe(released ? 8 : 0);
    expect(store.calls.filter((c) => c.outcome === 'error').length).toBeGreaterThanOrEqual(1);
    a.stop();
    b.stop();
    await Promise.all([a.done, b.done]);
  });

  it.each([
    ['renewDeadline >= leaseDuration', { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }],
    ['renewDeadline <= 1.2 × retryPeriod', { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }],
    ['leaseDuration not whole seconds', { leaseDurationMs: 15_500 }],
    ['zero retryPeriod', { retryPeriodMs: 0 }],
    ['empty identity', { identity: '' }],
  ])('rejects %s', (_name, bad) => {
    const make = (): LeaderElector =>
      new LeaderElector({
        client: new FakeLeaseStore().client(),
        namespace: NS,
        name: LOCK,
        identity: 'a',
        log: nopLogger,
        onStartedLeading: () => undefined,
        onStoppedLeading: () => undefined,
        ...bad,
      });
    expect(make).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });

  it('refuses to run twice at once', async () => {
    const clock = new FakeClock();
    const a = startCandidate(new FakeLeaseStore(), clock, 'a');
    await expect(a.elector.run(new AbortController().signal)).rejects.toMatchObject({
      code: 'KV_ERR_INTERNAL',
    });
    a.stop();
    await a.done;
  });
});
