/**
 * SharedInformer against the real kube-apiserver + etcd (KUBECONFIG from the integration global setup):
 * (a) 2,000 objects listed in pages and watched through a burst of writes; (b) kill -9 of the API server
 * with writes pending; (c) an etcd compaction that forces 410 Gone and a relist.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { newNamespaceName, testEnv, UNCACHED_RESOURCE, type TestEnv } from '../../../testenv/handle.ts';
import { isAlreadyExists, isNotFound } from '../errors/errors.ts';
import { HttpKubeClient } from '../kube/client.ts';
import { loadRestConfig } from '../kube/config.ts';
import { CONFIG_MAPS, NAMESPACES } from '../kube/resources.ts';
import type { GroupVersionResource, KubeObject, ListOptions, ObjectList } from '../kube/types.ts';
import { SharedInformer } from './informer.ts';
import { retrying, sleep, waitFor } from '../testing/wait.ts';
import { cacheSnapshot, diffSnapshots, mapConcurrent, serverSnapshot } from './testing/cluster.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

class ListCountingClient extends HttpKubeClient {
  readonly lists: ListOptions[] = [];
  override list<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    this.lists.push(opts);
    return super.list<T>(gvr, opts);
  }
}

const PODTEMPLATES: GroupVersionResource = { ...UNCACHED_RESOURCE, kind: 'PodTemplate', namespaced: true };

let env: TestEnv;
let client: ListCountingClient;
let ns: string;
/** Every informer run a test starts; aborted after each test, also a failed one. */
const runs: AbortController[] = [];
const newRun = (): AbortController => {
  const c = new AbortController();
  runs.push(c);
  return c;
};

afterEach(() => {
  for (const c of runs.splice(0)) c.abort();
});

beforeAll(async () => {
  env = testEnv();
  client = new ListCountingClient(loadRestConfig({ kubeconfig: env.kubeconfigPath, qps: 0 }));
  ns = newNamespaceName('informer');
  await client.create(NAMESPACES, { metadata: { name: ns } });
}, 60_000);

afterAll(async () => {
  await retrying(() => client.delete(NAMESPACES, ns), 30_000).catch(() => undefined);
  await client.destroy();
}, 60_000);

const cm = (name: string, test: string, v: string): ConfigMap => ({
  metadata: { name, namespace: ns, labels: { test } },
  data: { v },
});

function configMapInformer(test: string): { informer: SharedInformer<ConfigMap>; ctrl: AbortController } {
  const informer = new SharedInformer<ConfigMap>({
    client,
    gvr: CONFIG_MAPS,
    namespace: ns,
    labelSelector: `test=${test}`,
    freeze: true,
    backoff: { maxMs: 4_000 },
  });
  return { informer, ctrl: newRun() };
}

async function converged(
  informer: SharedInformer<KubeObject>,
  gvr: GroupVersionResource,
  test?: string,
): Promise<void> {
  const sel = { namespace: ns, ...(test !== undefined && { labelSelector: `test=${test}` }) };
  let diff = '';
  await waitFor(
    async () => {
      diff = diffSnapshots(await serverSnapshot(client, gvr, sel), cacheSnapshot(informer.store));
      return diff === '';
    },
    () => `the cache to equal the server (differs: ${diff})`,
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

const unless =
  (ok: (err: unknown) => boolean) =>
  (err: unknown): undefined => {
    if (ok(err)) return undefined;
    throw err;
  };

const names = (prefix: string, n: number, from = 0): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(from + i).padStart(4, '0')}`);

describe('SharedInformer on a real API server', () => {
  it('lists 2,000 objects in pages, then follows a burst of creates, updates and deletes', async () => {
    await mapConcurrent(names('a', 2000), 32, (n) => client.create(CONFIG_MAPS, cm(n, 'a', '0')));
    const { informer, ctrl } = configMapInformer('a');
    const listsBefore = client.lists.length;
    const done = informer.run(ctrl.signal);
    expect(await informer.waitForSync(ctrl.signal)).toBe(true);
    expect(informer.store.size).toBe(2000);
    const pages = client.lists.slice(listsBefore);
    expect(pages.map((p) => p.limit)).toEqual([500, 500, 500, 500]);
    expect(pages.filter((p) => p.continue !== undefined)).toHaveLength(3);

    await Promise.all([
      mapConcurrent(names('a', 300, 2000), 16, (n) => client.create(CONFIG_MAPS, cm(n, 'a', '0'))),
      mapConcurrent(names('a', 600), 16, (n) =>
        client.patch(CONFIG_MAPS, n, { data: { v: '1' } }, { type: 'merge', namespace: ns }),
      ),
      mapConcurrent(names('a', 300, 1700), 16, (n) => client.delete(CONFIG_MAPS, n, { namespace: ns })),
    ]);
    await converged(informer, CONFIG_MAPS, 'a');
    expect(informer.store.size).toBe(2000);
    expect(informer.stats.lists).toBe(1);
    ctrl.abort();
    await done;
  }, 180_000);

  it('recovers by itself after kill -9 of the API server and loses no update', async () => {
    const objs = names('b', 40);
    await mapConcurrent(objs, 8, (n) => client.create(CONFIG_MAPS, cm(n, 'b', '0')));
    const { informer, ctrl } = configMapInformer('b');
    const seen = new Map<string, string>();
    const record = (o: ConfigMap): void => {
      seen.set(o.metadata.name ?? '', o.data?.['v'] ?? '');
    };
    informer.addEventHandler({
      onAdd: record,
      onUpdate: (_old, o) => {
        record(o);
      },
      onDelete: (o) => {
        seen.delete(o.metadata.name ?? '');
      },
    });
    const done = informer.run(ctrl.signal);
    await informer.waitForSync(ctrl.signal);

    const patchAll = (v: string): Promise<unknown> =>
      mapConcurrent(objs, 8, (n) =>
        retrying(
          () => client.patch(CONFIG_MAPS, n, { data: { v } }, { type: 'merge', namespace: ns }),
          90_000,
        ),
      );
    let writing = true;
    const writes = (async (): Promise<void> => {
      for (let round = 1; round <= 10; round++) await patchAll(String(round));
      writing = false;
    })();
    await sleep(100);
    expect(writing).toBe(true);
    await env.killApiServer('SIGKILL');
    await sleep(1_000);
    await env.startApiServer();
    await writes;
    await patchAll('final');
    // a write whose answer was lost may have landed: AlreadyExists / NotFound on retry count as done
    await mapConcurrent(names('b', 5, 100), 5, (n) =>
      retrying(() => client.create(CONFIG_MAPS, cm(n, 'b', 'new')).catch(unless(isAlreadyExists))),
    );
    await retrying(() => client.delete(CONFIG_MAPS, 'b-0000', { namespace: ns }).catch(unless(isNotFound)));

    await converged(informer, CONFIG_MAPS, 'b');
    const server = await client.list<ConfigMap>(CONFIG_MAPS, { namespace: ns, labelSelector: 'test=b' });
    const want = new Map(server.items.map((o) => [o.metadata.name ?? '', o.data?.['v'] ?? '']));
    expect(seen).toEqual(want);
    expect(want.get('b-0001')).toBe('final');
    expect(informer.stats.failures).toBeGreaterThan(0);
    expect(informer.stats.watches).toBeGreaterThan(1);
    ctrl.abort();
    await done;
  }, 180_000);

  it('relists after etcd compaction made its resourceVersion unavailable (410 Gone)', async () => {
    const template = (name: string, v: string): KubeObject & { template: unknown } => ({
      metadata: { name, namespace: ns, labels: { v } },
      template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'example.invalid/none' }] } },
    });
    await mapConcurrent(names('c', 10), 5, (n) => client.create(PODTEMPLATES, template(n, '0')));
    const informer = new SharedInformer<KubeObject>({
      client,
      gvr: PODTEMPLATES,
      namespace: ns,
      freeze: true,
    });
    const deleted: string[] = [];
    informer.addEventHandler({ onDelete: (o) => deleted.push(o.metadata.name ?? '') });
    let ctrl = newRun();
    let done = informer.run(ctrl.signal);
    await informer.waitForSync(ctrl.signal);
    ctrl.abort();
    await done;
    const behind = informer.lastSyncResourceVersion;

    await mapConcurrent(names('c', 5), 5, (n) =>
      client.patch(PODTEMPLATES, n, { metadata: { labels: { v: '1' } } }, { type: 'merge', namespace: ns }),
    );
    await client.delete(PODTEMPLATES, 'c-0009', { namespace: ns });
    await client.create(PODTEMPLATES, template('c-0100', '1'));
    const compactedTo = await env.compactEtcd();
    expect(Number(compactedTo)).toBeGreaterThan(Number(behind));

    ctrl = newRun();
    done = informer.run(ctrl.signal);
    await converged(informer, PODTEMPLATES);
    expect(informer.stats.relists).toBe(1);
    expect(informer.stats.lists).toBe(2);
    expect(deleted).toEqual(['c-0009']);
    ctrl.abort();
    await done;
  }, 120_000);
});
