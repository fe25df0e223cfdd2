import { describe, expect, it } from '@jest/globals';
import { StatusError, newStatus } from '../errors/errors.ts';
import { listAll } from './list-all.ts';
import { PODS } from './resources.ts';
import type { KubeClient, KubeObject, ListOptions, ObjectList } from './types.ts';

const pod = (name: string): KubeObject => ({ metadata: { name } });

/** A fake list() serving pages by continue token, recording the options of each call. */
function pagedClient(pages: Record<string, ObjectList>): Pick<KubeClient, 'list'> & { calls: ListOptions[] } {
  const calls: ListOptions[] = [];
  return {
    calls,
    list: <T extends KubeObject>(_gvr: unknown, opts: ListOptions = {}): Promise<ObjectList<T>> => {
      calls.push(opts);
      const page = pages[opts.continue ?? ''];
      if (!page) return Promise.reject(new StatusError(newStatus(410, 'continue token expired')));
      return Promise.resolve(page as ObjectList<T>);
    },
  };
}

describe('listAll', () => {
  it('follows continue tokens and keeps the list resourceVersion', async () => {
    const client = pagedClient({
      '': { metadata: { resourceVersion: '10', continue: 'c1' }, items: [pod('a'), pod('b')] },
      c1: { metadata: { resourceVersion: '10', continue: 'c2' }, items: [pod('c'), pod('d')] },
      c2: { metadata: { resourceVersion: '10' }, items: [pod('e')] },
    });
    const got = await listAll(client, PODS, { namespace: 'ns', labelSelector: 'x=y', limit: 2 });
    expect(got.items.map((p) => p.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(got.resourceVersion).toBe('10');
    expect(client.calls).toEqual([
      { namespace: 'ns', labelSelector: 'x=y', limit: 2 },
      { namespace: 'ns', labelSelector: 'x=y', limit: 2, continue: 'c1' },
      { namespace: 'ns', labelSelector: 'x=y', limit: 2, continue: 'c2' },
    ]);
  });

  it('returns a single page as is', async () => {
    const client = pagedClient({ '': { metadata: { resourceVersion: '3' }, items: [] } });
    await expect(listAll(client, PODS)).resolves.toEqual({ items: [], resourceVersion: '3' });
  });

  it('passes errors through (an expired continue token is 410)', async () => {
    const client = pagedClient({
      '': { metadata: { resourceVersion: '3', continue: 'old' }, items: [pod('a')] },
    });
    await expect(listAll(client, PODS)).rejects.toBeInstanceOf(StatusError);
  });

  it('gives up after maxPages', async () => {
    const client = pagedClient({ '': { metadata: { continue: '' }, items: [] } });
    const loop = pagedClient({
      '': { metadata: { continue: 'again' }, items: [] },
      again: { metadata: { continue: 'again' }, items: [] },
    });
    await expect(listAll(client, PODS, { maxPages: 1 })).resolves.toEqual({ items: [], resourceVersion: '' });
    await expect(listAll(loop, PODS, { maxPages: 3 })).rejects.toMatchObject({ code: 'KV_ERR_INTERNAL' });
    expect(loop.calls).toHaveLength(3);
  });
});
