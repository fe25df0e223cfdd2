import { describe, expect, it } from '@jest/globals';
import { KvError, newStatus, StatusError } from '../errors/errors.ts';
import { Reflector, type ReflectorOptions } from './reflector.ts';
import {
  FakeListWatchClient,
  flush,
  obj,
  page,
  until,
  type ListAnswer,
  type TestObject,
} from './testing/fake-client.ts';
import { RecordingClock, RecordingSink, TEST_GVR } from './testing/recorders.ts';

const gone = (): StatusError => new StatusError(newStatus(410, 'too old resource version'));
const err500 = (): StatusError => new StatusError(newStatus(500, 'etcd down'));

function start(onList: ListAnswer, extra: Partial<ReflectorOptions<TestObject>> = {}) {
  const clock = new RecordingClock();
  const client = new FakeListWatchClient(onList);
  const sink = new RecordingSink<TestObject>();
  const reflector = new Reflector<TestObject>({
    client,
    gvr: TEST_GVR,
    sink,
    clock,
    random: () => 0.5,
    ...extra,
  });
  const ctrl = new AbortController();
  const done = reflector.run(ctrl.signal);
  const watchCount = (n: number): Promise<void> => until(() => client.watches.length === n, `watch #${n}`);
  return { clock, client, sink, reflector, ctrl, done, watchCount };
}

/** Pages a, b | c, d | e at rv 10, following continue tokens t1, t2. */
const pagedList: ListAnswer = (opts) => {
  switch (opts.continue) {
    case undefined:
      return page([obj('a', '1'), obj('b', '2')], '10', 't1');
    case 't1':
      return page([obj('c', '3'), obj('d', '4')], '10', 't2');
    default:
      return page([obj('e', '5')], '10');
  }
};

describe('Reflector list', () => {
  it('assembles a paged list, then watches from its resourceVersion with bookmarks', async () => {
    const t = start(pagedList, { pageSize: 2, namespace: 'default', labelSelector: 'app=web' });
    await t.watchCount(1);
    expect(t.client.lists).toEqual([
      { namespace: 'default', labelSelector: 'app=web', limit: 2 },
      { namespace: 'default', labelSelector: 'app=web', limit: 2, continue: 't1' },
      { namespace: 'default', labelSelector: 'app=web', limit: 2, continue: 't2' },
    ]);
    expect(t.sink.calls).toEqual(['replace a@1,b@2,c@3,d@4,e@5 rv=10']);
    expect(t.client.lastWatch.opts).toEqual({
      namespace: 'default',
      labelSelector: 'app=web',
      resourceVersion: '10',
      allowWatchBookmarks: true,
      timeoutSeconds: 450,
    });
    expect(t.reflector.lastSyncResourceVersion).toBe('10');
    t.ctrl.abort();
    await t.done;
  });

  it('sends a field selector with the label selector on every list page and on the watch', async () => {
    const t = start(pagedList, { pageSize: 2, labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1' });
    await t.watchCount(1);
    const selectors = { labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1' };
    expect(t.client.lists).toEqual([
      { ...selectors, limit: 2 },
      { ...selectors, limit: 2, continue: 't1' },
      { ...selectors, limit: 2, continue: 't2' },
    ]);
    expect(t.client.lastWatch.opts).toMatchObject(selectors);
    t.ctrl.abort();
    await t.done;
  });

  it('uses a page size of 500 by default', async () => {
    const t = start(() => page([], '1'));
    await t.watchCount(1);
    expect(t.client.lists).toEqual([{ limit: 500 }]);
    t.ctrl.abort();
    await t.done;
  });

  it('restarts the list from scratch when a continue token expires', async () => {
    let expired = false;
    const t = start(
      (opts, call) => {
        if (opts.continue === 't1' && !expired) {
          expired = true;
          throw gone();
        }
        return pagedList(opts, call);
      },
      { pageSize: 2 },
    );
    await t.watchCount(1);
    expect(t.client.lists.map((l) => l.continue)).toEqual([undefined, 't1', undefined, 't1', 't2']);
    expect(t.sink.calls).toEqual(['replace a@1,b@2,c@3,d@4,e@5 rv=10']);
    expect(t.clock.sleeps).toEqual([]);
    t.ctrl.abort();
    await t.done;
  });

  it('backs off with growing, jittered delays on list errors and never gives up', async () => {
    const draws = [0.1, 0.9, 0.4, 0.7, 0.2, 0.6, 0.3, 0.8, 0.5, 0.05];
    let i = 0;
    const t = start(
      (_opts, call) => {
        if (call <= 10) throw err500();
        return page([obj('a', '1')], '7');
      },
      { random: () => draws[i++ % draws.length] ?? 0 },
    );
    for (let n = 1; n <= 10; n++) {
      await until(() => t.clock.sleeps.length === n, `sleep #${n}`);
      t.clock.advance(t.clock.sleeps[n - 1] ?? 0);
    }
    await t.watchCount(1);
    const bases = [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000];
    t.clock.sleeps.forEach((d, k) => {
      const base = bases[k] ?? 0;
      expect(d).toBeGreaterThan(base / 2);
      expect(d).toBeLessThanOrEqual(base);
    });
    expect(new Set(t.clock.sleeps.slice(6)).size).toBeGreaterThan(1);
    expect(t.sink.calls).toEqual(['replace a@1 rv=7']);
    expect(t.reflector.stats).toMatchObject({ lists: 1, failures: 10 });
    t.ctrl.abort();
    await t.done;
  });
});

describe('Reflector watch', () => {
  it('applies events in order and tracks their resourceVersion', async () => {
    const t = start(() => page([obj('a', '1'), obj('b', '2')], '10'));
    await t.watchCount(1);
    const w = t.client.lastWatch;
    w.send({ type: 'ADDED', object: obj('c', '11') });
    w.send({ type: 'MODIFIED', object: obj('a', '12') });
    w.send({ type: 'DELETED', object: obj('b', '13') });
    await until(() => t.sink.calls.length === 4, 'events');
    expect(t.sink.calls.slice(1)).toEqual(['add c@11', 'update a@12', 'delete b@13']);
    expect(t.reflector.lastSyncResourceVersion).toBe('13');
    t.ctrl.abort();
    await t.done;
  });

  it('a bookmark advances the resourceVersion and the next watch resumes from it without a list', async () => {
    const t = start(() => page([obj('a', '1')], '10'));
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '25' } } });
    t.client.lastWatch.end();
    await t.watchCount(2);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('25');
    expect(t.client.lists).toHaveLength(1);
    expect(t.sink.calls).toHaveLength(1);
    expect(t.clock.sleeps).toEqual([]);
    t.ctrl.abort();
    await t.done;
  });

  it.each([
    [
      'an ERROR event',
      (t: ReturnType<typeof start>): void => {
        t.client.lastWatch.send({ type: 'ERROR', object: gone().status });
      },
    ],
    [
      'a 410 answer to the watch request',
      (t: ReturnType<typeof start>) => {
        t.client.watchError = gone();
        t.client.lastWatch.end();
      },
    ],
  ])('410 Gone as %s relists at once', async (_name, trigger) => {
    let rv = 10;
    const t = start(() => page([obj('a', String(rv))], String(rv++)));
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'MODIFIED', object: obj('a', '11') });
    await until(() => t.sink.calls.length === 2, 'event');
    trigger(t);
    await until(() => t.client.lists.length === 2, 'relist');
    await until(() => t.client.watches.length >= 2 && !t.client.lastWatch.closed, 'new watch');
    expect(t.sink.calls).toEqual(['replace a@10 rv=10', 'update a@11', 'replace a@11 rv=11']);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('11');
    expect(t.reflector.stats).toMatchObject({ lists: 2, relists: 1, failures: 0 });
    expect(t.clock.sleeps).toEqual([]);
    t.ctrl.abort();
    await t.done;
  });

  it('410 straight after a list relists only after a backoff', async () => {
    const t = start(() => page([], '10'));
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'ERROR', object: gone().status });
    await until(() => t.clock.sleeps.length === 1, 'backoff');
    expect(t.client.lists).toHaveLength(1);
    t.clock.advance(t.clock.sleeps[0] ?? 0);
    await until(() => t.client.lists.length === 2, 'relist');
    t.ctrl.abort();
    await t.done;
  });

  it.each([
    [
      'an ERROR event with 500',
      (t: ReturnType<typeof start>): void => {
        t.client.lastWatch.send({ type: 'ERROR', object: err500().status });
      },
    ],
    [
      'a broken stream',
      (t: ReturnType<typeof start>): void => {
        t.client.lastWatch.fail(new KvError('KV_ERR_TRANSPORT', 'reset'));
      },
    ],
    [
      'a stream closed before any event',
      (t: ReturnType<typeof start>): void => {
        t.client.lastWatch.end();
      },
    ],
  ])('%s backs off, then resumes the watch from the last resourceVersion', async (_name, trigger) => {
    const t = start(() => page([obj('a', '1')], '10'));
    await t.watchCount(1);
    trigger(t);
    await until(() => t.clock.sleeps.length === 1, 'backoff');
    expect(t.clock.sleeps[0]).toBe(600);
    t.clock.advance(600);
    await t.watchCount(2);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('10');
    expect(t.client.lists).toHaveLength(1);
    t.ctrl.abort();
    await t.done;
  });

  it('drops a watch that is silent for the inactivity timeout and resumes it', async () => {
    const t = start(() => page([], '10'), { inactivityTimeoutMs: 60_000 });
    await t.watchCount(1);
    const first = t.client.lastWatch;
    t.clock.advance(30_000);
    first.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '12' } } });
    await flush();
    t.clock.advance(40_000);
    await flush();
    expect(first.closed).toBe(false);
    expect(t.client.watches).toHaveLength(1);
    t.clock.advance(20_000);
    await t.watchCount(2);
    expect(first.signal.aborted).toBe(true);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('12');
    expect(t.clock.sleeps).toEqual([]);
    t.ctrl.abort();
    await t.done;
  });
});

describe('Reflector stop', () => {
  it('stops quietly on abort during a watch', async () => {
    const t = start(() => page([], '10'));
    await t.watchCount(1);
    t.ctrl.abort();
    await expect(t.done).resolves.toBeUndefined();
    expect(t.client.lastWatch.closed).toBe(true);
    expect(t.client.watches).toHaveLength(1);
  });

  it('stops quietly on abort during a backoff', async () => {
    const t = start(() => {
      throw err500();
    });
    await until(() => t.clock.sleeps.length === 1, 'backoff');
    t.ctrl.abort();
    await expect(t.done).resolves.toBeUndefined();
    expect(t.client.watches).toHaveLength(0);
  });

  it('a later run resumes from the last resourceVersion', async () => {
    const t = start(() => page([], '10'));
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'ADDED', object: obj('a', '14') });
    await until(() => t.sink.calls.length === 2, 'event');
    t.ctrl.abort();
    await t.done;
    const again = new AbortController();
    const done = t.reflector.run(again.signal);
    await t.watchCount(2);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('14');
    expect(t.client.lists).toHaveLength(1);
    again.abort();
    await done;
  });
});
