import { beforeEach, describe, expect, it } from '@jest/globals';
import { newStatus, StatusError } from '../../kernel/errors/errors.ts';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { KEY, kubevirt, NS, OperatorHarness } from './testing/harness.ts';

let h: OperatorHarness;
beforeEach(() => {
  h = new OperatorHarness();
});

const body = (n: number): KubeVirt => h.kubevirtClient.actions[n]?.body as KubeVirt;

describe('operatorReconciler', () => {
  it('a KubeVirt resource without the finalizer gets it, its other finalizers kept, and nothing else', async () => {
    h.caches.kubevirts.store.add(kubevirt({}, { finalizers: ['example.com/keep'] }));
    expect(await h.reconcile()).toBeUndefined();
    expect(h.client.log).toEqual([]);
    expect(h.kubevirtClient.log).toEqual([`patch kubevirts ${NS}/kubevirt`]);
    expect(body(0)).toEqual({
      metadata: { finalizers: ['example.com/keep', 'foregroundDeleteKubeVirt'], resourceVersion: '1' },
    });
  });

  it('a second, younger KubeVirt resource is left alone; a key no longer cached is done', async () => {
    h.caches.kubevirts.store.add(kubevirt());
    h.caches.kubevirts.store.add(
      kubevirt(
        {},
        { name: 'second', uid: 'kv-uid-2', creationTimestamp: '2026-03-02T00:00:00Z', finalizers: [] },
      ),
    );
    expect(await h.reconcile(`${NS}/second`)).toBeUndefined();
    expect(await h.reconcile(`${NS}/gone`)).toBeUndefined();
    expect([...h.client.log, ...h.kubevirtClient.log]).toEqual([]);
    await h.reconcile();
    expect(h.client.log).not.toEqual([]);
  });

  it('deletion: Deleting, every object deleted in reverse creation order, then Deleted and the finalizer removed', async () => {
    h.caches.kubevirts.store.add(kubevirt());
    await h.converge();
    const installed = h.caches.installedObjects().length;
    const kv = h.kubevirt() ?? kubevirt();
    h.caches.kubevirts.store.add({
      ...kv,
      metadata: { ...kv.metadata, deletionTimestamp: '2026-03-01T01:00:00Z' },
    });

    expect(await h.reconcile()).toEqual({ requeueAfterMs: 2000 });
    expect(h.kubevirtClient.log).toEqual([`patch kubevirts ${NS}/kubevirt status`]);
    expect(body(0).status?.phase).toBe('Deleting');
    expect(h.client.actions.filter((a) => a.verb === 'delete')).toHaveLength(installed);
    expect(h.resourceRuns()).toEqual([
      'mutatingwebhookconfigurations',
      'validatingwebhookconfigurations',
      'daemonsets',
      'deployments',
      'poddisruptionbudgets',
      'services',
      'configmaps',
      'secrets',
      'rolebindings',
      'roles',
      'clusterrolebindings',
      'clusterroles',
      'serviceaccounts',
    ]);
    h.settle();
    expect(h.caches.installedObjects()).toEqual([]);

    // The API server answers the status write with the whole resource at a new version.
    const cached = h.kubevirt() ?? kubevirt();
    h.kubevirtClient.patchAnswer = (_gvr, _name, patch) => ({
      ...cached,
      ...(patch as object),
      metadata: { ...cached.metadata, resourceVersion: '777' },
    });
    expect(await h.reconcile()).toBeUndefined();
    expect(h.client.log).toEqual([]);
    expect(h.kubevirtClient.log).toEqual([
      `patch kubevirts ${NS}/kubevirt status`,
      `patch kubevirts ${NS}/kubevirt`,
    ]);
    expect(body(0).status?.phase).toBe('Deleted');
    // Off the version the status write produced: the cached one is stale by then.
    expect(body(1).metadata).toEqual({ finalizers: [], resourceVersion: '777' });
    h.settle();
    expect(h.caches.kubevirts.store.get(KEY)).toBeUndefined();
  });

  it('a deletion pass on a cache that still holds the resource after it went is done', async () => {
    h.caches.kubevirts.store.add(kubevirt({}, { deletionTimestamp: '2026-03-01T01:00:00Z' }));
    h.kubevirtClient.failNext('patch', 'kubevirts', new StatusError(newStatus(404, 'not found')));
    expect(await h.reconcile()).toBeUndefined();
    expect(h.kubevirtClient.log).toEqual([`patch kubevirts ${NS}/kubevirt status`]);
    h.kubevirtClient.failNext('patch', 'kubevirts', new StatusError(newStatus(409, 'conflict')));
    await expect(h.reconcile()).rejects.toThrow('conflict');
  });
});
