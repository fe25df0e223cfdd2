import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { InformerFactory } from './factory.ts';
import { SharedInformer } from './informer.ts';
import { FakeListWatchClient, page, until, type TestObject } from './testing/fake-client.ts';
import { TEST_GVR } from './testing/recorders.ts';

function setup() {
  const gates: (() => void)[] = [];
  const client = new FakeListWatchClient(
    () =>
      new Promise((resolve) => {
        gates.push(() => {
          resolve(page([], '1'));
        });
      }),
  );
  const clock = new FakeClock();
  let made = 0;
  const make = (): SharedInformer<TestObject> => {
    made++;
    return new SharedInformer<TestObject>({ client, gvr: TEST_GVR, clock });
  };
  return { client, gates, make, made: (): number => made };
}

describe('InformerFactory', () => {
  it('creates one informer per key', () => {
    const s = setup();
    const f = new InformerFactory();
    const a = f.informerFor('configmaps', s.make);
    expect(f.informerFor('configmaps', s.make)).toBe(a);
    expect(f.informerFor('other', s.make)).not.toBe(a);
    expect(s.made()).toBe(2);
    expect(f.keys()).toEqual(['configmaps', 'other']);
  });

  it('starts each informer once, also when start() is called again, and waits for all to sync', async () => {
    const s = setup();
    const f = new InformerFactory();
    f.informerFor('a', s.make);
    const ctrl = new AbortController();
    f.start(ctrl.signal);
    f.informerFor('b', s.make);
    f.start(ctrl.signal);
    f.start(ctrl.signal);
    await until(() => s.client.lists.length === 2, 'two lists');
    const synced = f.waitForCacheSync(ctrl.signal);
    expect(f.hasSynced()).toBe(false);
    s.gates[0]?.();
    await until(() => s.client.watches.length === 1, 'first watch');
    expect(f.hasSynced()).toBe(false);
    s.gates[1]?.();
    await expect(synced).resolves.toBe(true);
    expect(f.hasSynced()).toBe(true);
    expect(s.client.lists).toHaveLength(2);
    expect(f.running).toBe(true);
    ctrl.abort();
    await f.stopped();
    expect(f.running).toBe(false);
  });

  it('waitForCacheSync answers false when aborted before sync', async () => {
    const s = setup();
    const f = new InformerFactory();
    f.informerFor('a', s.make);
    const ctrl = new AbortController();
    f.start(ctrl.signal);
    const synced = f.waitForCacheSync(ctrl.signal);
    ctrl.abort();
    await expect(synced).resolves.toBe(false);
  });
});
