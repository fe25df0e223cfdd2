import { describe, expect, it } from '@jest/globals';
import { newStatus } from '../errors/errors.ts';
import type { KubeObject } from '../kube/types.ts';
import { memoryLogger } from '../log/log.ts';
import { fieldIndex, labelIndex, namespaceIndex } from './index-funcs.ts';
import { SharedInformer, type EventHandler, type SharedInformerOptions } from './informer.ts';
import {
  FakeListWatchClient,
  obj,
  page,
  until,
  type ListAnswer,
  type TestObject,
} from './testing/fake-client.ts';
import { RecordingClock, TEST_GVR } from './testing/recorders.ts';

const tag = (o: KubeObject): string => `${o.metadata.name ?? ''}@${o.metadata.resourceVersion ?? ''}`;

function recorder(events: string[]): EventHandler<TestObject> {
  return {
    onAdd: (o) => events.push(`add ${tag(o)}`),
    onUpdate: (a, b) => events.push(`update ${tag(a)} -> ${tag(b)}`),
    onDelete: (o) =>
      events.push(`delete ${tag(o)}${o.metadata.labels ? ' ' + JSON.stringify(o.metadata.labels) : ''}`),
  };
}

function start(onList: ListAnswer, extra: Partial<SharedInformerOptions<TestObject>> = {}) {
  const clock = new RecordingClock();
  const client = new FakeListWatchClient(onList);
  const informer = new SharedInformer<TestObject>({
    client,
    gvr: TEST_GVR,
    clock,
    random: () => 0.5,
    freeze: true,
    indexers: { namespace: namespaceIndex, app: labelIndex('app'), node: fieldIndex('spec.nodeName') },
    ...extra,
  });
  const events: string[] = [];
  informer.addEventHandler(recorder(events));
  const ctrl = new AbortController();
  const done = informer.run(ctrl.signal);
  const watchCount = (n: number): Promise<void> => until(() => client.watches.length === n, `watch #${n}`);
  const stop = async (): Promise<void> => {
    ctrl.abort();
    await done;
  };
  return { clock, client, informer, events, ctrl, done, watchCount, stop };
}

describe('SharedInformer', () => {
  it('delivers the first list as adds and is synced only after it', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const t = start(async () => {
      await gate;
      return page([obj('a', '1'), obj('b', '2')], '10');
    });
    const synced = t.informer.waitForSync(new AbortController().signal);
    expect(t.informer.hasSynced()).toBe(false);
    release();
    await expect(synced).resolves.toBe(true);
    expect(t.informer.hasSynced()).toBe(true);
    expect(t.events).toEqual(['add a@1', 'add b@2']);
    expect(t.informer.lastSyncResourceVersion).toBe('10');
    await t.stop();
  });

  it('waitForSync answers false when its signal aborts first', async () => {
    const t = start(() => new Promise(() => undefined));
    const ctrl = new AbortController();
    const synced = t.informer.waitForSync(ctrl.signal);
    ctrl.abort();
    await expect(synced).resolves.toBe(false);
    t.ctrl.abort();
  });

  it('turns watch events into add, update(old, new) and delete(final state)', async () => {
    const t = start(() => page([obj('a', '1')], '10'));
    await t.watchCount(1);
    const w = t.client.lastWatch;
    w.send({ type: 'ADDED', object: obj('b', '11') });
    w.send({ type: 'MODIFIED', object: obj('a', '12') });
    w.send({ type: 'MODIFIED', object: obj('c', '13') });
    w.send({ type: 'DELETED', object: obj('b', '14') });
    await until(() => t.events.length === 5, 'events');
    expect(t.events).toEqual(['add a@1', 'add b@11', 'update a@1 -> a@12', 'add c@13', 'delete b@14']);
    expect(t.informer.store.listKeys().sort()).toEqual(['default/a', 'default/c']);
    await t.stop();
  });

  it('on a relist after 410 delivers only the changes, deletes with the last known state', async () => {
    const lists = [
      page([obj('a', '1'), obj('b', '1'), obj('c', '1', { labels: { app: 'web' } })], '10'),
      page([obj('a', '1'), obj('b', '5'), obj('d', '6')], '20'),
    ];
    const t = start((_o, call) => lists[call - 1] ?? page([], '99'));
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '12' } } });
    t.client.lastWatch.send({ type: 'ERROR', object: newStatus(410, 'too old resource version') });
    await t.watchCount(2);
    expect(t.events.slice(3)).toEqual(['add d@6', 'update b@1 -> b@5', 'delete c@1 {"app":"web"}']);
    expect(t.informer.store.listKeys().sort()).toEqual(['default/a', 'default/b', 'default/d']);
    expect(t.informer.store.byIndex('app', 'web')).toEqual([]);
    expect(t.informer.stats.relists).toBe(1);
    expect(t.informer.lastSyncResourceVersion).toBe('20');
    await t.stop();
  });

  it('keeps the indexes in step with updates and deletes from the watch', async () => {
    const t = start(() =>
      page([obj('p1', '1', { nodeName: 'n1' }), obj('p2', '1', { namespace: 'x' })], '10'),
    );
    await t.watchCount(1);
    const node = (n: string): string[] => t.informer.store.byIndex('node', n).map(tag);
    expect(node('n1')).toEqual(['p1@1']);
    t.client.lastWatch.send({ type: 'MODIFIED', object: obj('p1', '11', { nodeName: 'n2' }) });
    t.client.lastWatch.send({
      type: 'MODIFIED',
      object: obj('p2', '12', { namespace: 'x', nodeName: 'n2' }),
    });
    await until(() => node('n2').length === 2, 'update');
    expect(node('n1')).toEqual([]);
    t.client.lastWatch.send({ type: 'DELETED', object: obj('p1', '13', { nodeName: 'n2' }) });
    await until(() => node('n2').length === 1, 'delete');
    expect(node('n2')).toEqual(['p2@12']);
    expect(t.informer.store.byIndex('namespace', 'x').map(tag)).toEqual(['p2@12']);
    expect(t.informer.store.byIndex('namespace', 'default')).toEqual([]);
    await t.stop();
  });

  it('resyncs every period (jittered) with onUpdate(obj, obj) for every cached object', async () => {
    const t = start(() => page([obj('a', '1'), obj('b', '2')], '10'), { resyncPeriodMs: 10_000 });
    const same: boolean[] = [];
    t.informer.addEventHandler({ onUpdate: (a, b) => same.push(a === b) });
    await t.watchCount(1);
    t.clock.advance(9_999);
    expect(t.events).toEqual(['add a@1', 'add b@2']);
    t.clock.advance(1);
    await until(() => t.events.length === 4, 'resync');
    expect(t.events.slice(2)).toEqual(['update a@1 -> a@1', 'update b@2 -> b@2']);
    expect(same).toEqual([true, true]);
    expect(t.clock.sleeps).toEqual([10_000, 10_000]);
    await t.stop();
  });

  it('jitters the resync period within ±10 %', async () => {
    const draws = [0, 0.5, 0.999];
    const t = start(() => page([], '1'), { resyncPeriodMs: 10_000, random: () => draws.shift() ?? 0.5 });
    await until(() => t.clock.sleeps.length === 1, 'first resync wait');
    t.clock.advance(t.clock.sleeps[0] ?? 0);
    await until(() => t.clock.sleeps.length === 2, 'second resync wait');
    expect(t.clock.sleeps[0]).toBe(9_000);
    expect(t.clock.sleeps[1]).toBeGreaterThanOrEqual(9_000);
    expect(t.clock.sleeps[1]).toBeLessThanOrEqual(11_000);
    await t.stop();
  });

  it('replays the cache to a handler added late; a removed handler hears nothing more', async () => {
    const t = start(() => page([obj('a', '1')], '10'));
    await t.watchCount(1);
    const late: string[] = [];
    const reg = t.informer.addEventHandler(recorder(late));
    expect(late).toEqual(['add a@1']);
    reg.remove();
    t.client.lastWatch.send({ type: 'ADDED', object: obj('b', '2') });
    await until(() => t.events.length === 2, 'event');
    expect(late).toEqual(['add a@1']);
    await t.stop();
  });

  it('a throwing handler is logged and does not stop the others', async () => {
    const { log, lines } = memoryLogger();
    const t = start(() => page([obj('a', '1')], '10'), { log });
    t.informer.addEventHandler({
      onUpdate: () => {
        throw new Error('boom');
      },
    });
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'MODIFIED', object: obj('a', '2') });
    t.client.lastWatch.send({ type: 'ADDED', object: obj('b', '3') });
    await until(() => t.events.length === 3, 'events');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event handler threw', reason: 'boom' }));
    await t.stop();
  });

  it('run() twice shares one run; it resolves on abort and a later run resumes', async () => {
    const t = start(() => page([], '10'), { resyncPeriodMs: 60_000 });
    expect(t.informer.run(t.ctrl.signal)).toBe(t.done);
    await t.watchCount(1);
    t.client.lastWatch.send({ type: 'ADDED', object: obj('a', '11') });
    await until(() => t.events.length === 1, 'event');
    await t.stop();
    expect(t.clock.pendingCount).toBe(0);
    const again = new AbortController();
    const done = t.informer.run(again.signal);
    await t.watchCount(2);
    expect(t.client.lastWatch.opts.resourceVersion).toBe('11');
    expect(t.client.lists).toHaveLength(1);
    again.abort();
    await done;
  });
});
