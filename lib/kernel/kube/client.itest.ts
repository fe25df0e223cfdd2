/**
 * HttpKubeClient against a real kube-apiserver (the cluster named by KUBECONFIG, which the integration
 * global setup points at the test control plane).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { KvError, isAlreadyExists, isConflict, isNotFound } from '../errors/errors.ts';
import { HttpKubeClient } from './client.ts';
import { loadRestConfig } from './config.ts';
import { listAll } from './list-all.ts';
import { CONFIG_MAPS, NAMESPACES } from './resources.ts';
import type { KubeObject, WatchEvent } from './types.ts';
import { statusFailure } from './testing/status-failure.ts';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const ns = `kv-kube-client-${randomBytes(4).toString('hex')}`;
let client: HttpKubeClient;

const configMap = (
  name: string,
  data: Record<string, string> = {},
  labels: Record<string, string> = {},
): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data,
});

beforeAll(async () => {
  client = new HttpKubeClient(loadRestConfig({ inCluster: false, userAgent: 'kubevirt-ts/itest' }));
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

afterAll(async () => {
  await client.delete(NAMESPACES, ns);
  // Without a namespace controller the namespace stays Terminating; either way it is on its way out.
  let left: KubeObject | undefined;
  try {
    left = await client.get(NAMESPACES, ns);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  expect(left === undefined || left.metadata.deletionTimestamp !== undefined).toBe(true);
  await client.close();
});

describe('HttpKubeClient against kube-apiserver', () => {
  it('answers a raw request', async () => {
    const version = await client.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
    expect(version.gitVersion).toMatch(/^v1\.\d+/);
  });

  it('creates, reads, updates and deletes a ConfigMap, with 404 and 409 as StatusErrors', async () => {
    const created = await client.create(CONFIG_MAPS, configMap('crud', { a: '1' }));
    expect(created.metadata.uid).toBeDefined();
    expect(isAlreadyExists(await statusFailure(client.create(CONFIG_MAPS, configMap('crud'))))).toBe(true);

    const got = await client.get<ConfigMap>(CONFIG_MAPS, 'crud', { namespace: ns });
    expect(got.data).toEqual({ a: '1' });

    const updated = await client.update(CONFIG_MAPS, { ...got, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    expect(updated.metadata.resourceVersion).not.toBe(got.metadata.resourceVersion);

    const stale = await statusFailure(client.update(CONFIG_MAPS, { ...got, data: { a: '3' } }));
    expect(isConflict(stale)).toBe(true);
    expect(stale.httpCode).toBe(409);

    await client.delete(CONFIG_MAPS, 'crud', {
      namespace: ns,
      preconditions: { uid: created.metadata.uid ?? '' },
    });
    const gone = await statusFailure(client.get(CONFIG_MAPS, 'crud', { namespace: ns }));
    expect(isNotFound(gone)).toBe(true);
    expect(gone.reason).toBe('NotFound');
    expect(isNotFound(await statusFailure(client.delete(CONFIG_MAPS, 'crud', { namespace: ns })))).toBe(true);
  });

  it('applies all four patch types', async () => {
    await client.create(CONFIG_MAPS, configMap('patched', { a: '1' }));
    const opts = { namespace: ns };
    const jsonPatched = await client.patch<ConfigMap>(
      CONFIG_MAPS,
      'patched',
      [{ op: 'add', path: '/data/b', value: '2' }],
      {
        ...opts,
        type: 'json',
      },
    );
    expect(jsonPatched.data).toEqual({ a: '1', b: '2' });

    const merged = await client.patch<ConfigMap>(
      CONFIG_MAPS,
      'patched',
      { data: { a: null, c: '3' } },
      { ...opts, type: 'merge' },
    );
    expect(merged.data).toEqual({ b: '2', c: '3' });

    const strategic = await client.patch<ConfigMap>(
      CONFIG_MAPS,
      'patched',
      { metadata: { labels: { tier: 'x' } } },
      { ...opts, type: 'strategic' },
    );
    expect(strategic.metadata.labels).toEqual({ tier: 'x' });

    const applied = await client.patch<ConfigMap>(
      CONFIG_MAPS,
      'patched',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'patched', namespace: ns },
        data: { b: 'applied' },
      },
      { ...opts, type: 'apply', fieldManager: 'kubevirt-ts-itest', force: true },
    );
    expect(applied.data?.['b']).toBe('applied');
    expect(applied.metadata).toHaveProperty('managedFields');

    const dry = await client.patch<ConfigMap>(
      CONFIG_MAPS,
      'patched',
      { data: { d: '4' } },
      { ...opts, type: 'merge', dryRun: true },
    );
    expect(dry.data?.['d']).toBe('4');
    expect((await client.get<ConfigMap>(CONFIG_MAPS, 'patched', opts)).data?.['d']).toBeUndefined();
  });

  it('lists page by page', async () => {
    const labels = { set: 'paging' };
    for (let i = 0; i < 5; i++) await client.create(CONFIG_MAPS, configMap(`page-${i}`, {}, labels));
    const first = await client.list(CONFIG_MAPS, { namespace: ns, labelSelector: 'set=paging', limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata.continue).toBeTruthy();

    const all = await listAll(client, CONFIG_MAPS, { namespace: ns, labelSelector: 'set=paging', limit: 2 });
    expect(all.items.map((c) => c.metadata.name).sort()).toEqual([
      'page-0',
      'page-1',
      'page-2',
      'page-3',
      'page-4',
    ]);
    expect(all.resourceVersion).toMatch(/^\d+$/);
  });

  it('watches ADDED, MODIFIED and DELETED from a list resourceVersion', async () => {
    const { resourceVersion } = await listAll(client, CONFIG_MAPS, {
      namespace: ns,
      labelSelector: 'set=watch',
    });
    await client.create(CONFIG_MAPS, configMap('watched', { v: '1' }, { set: 'watch' }));
    await client.patch(CONFIG_MAPS, 'watched', { data: { v: '2' } }, { namespace: ns, type: 'merge' });
    await client.delete(CONFIG_MAPS, 'watched', { namespace: ns });

    const ac = new AbortController();
    const seen: string[] = [];
    const events = client.watch<ConfigMap>(
      CONFIG_MAPS,
      {
        namespace: ns,
        labelSelector: 'set=watch',
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 60,
      },
      ac.signal,
    );
    for await (const ev of events as AsyncIterable<WatchEvent<ConfigMap>>) {
      if (ev.type === 'ERROR') throw new KvError('KV_ERR_STATUS', ev.object.message ?? 'watch error');
      if (ev.type === 'BOOKMARK') continue;
      seen.push(`${ev.type}:${ev.object.data?.['v'] ?? ''}`);
      if (ev.type === 'DELETED') ac.abort();
    }
    expect(seen).toEqual(['ADDED:1', 'MODIFIED:2', 'DELETED:2']);
  });
});
