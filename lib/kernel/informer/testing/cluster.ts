/**
 * Helpers for informer tests and benches against a real API server: bounded-concurrency writes, a
 * bounded poll, and name → resourceVersion snapshots of the cache and of the server.
 */
import type { GroupVersionResource, KubeClient, KubeObject } from '../../kube/types.ts';
import type { StoreReader } from '../store.ts';

/** Runs fn over items with at most `limit` calls in flight; rejects with the first error. */
export async function mapConcurrent<I, O>(
  items: readonly I[],
  limit: number,
  fn: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  const out: O[] = new Array<O>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as I, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export type Snapshot = Map<string, string>;

export function cacheSnapshot(store: StoreReader<KubeObject>): Snapshot {
  return new Map(store.list().map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

/** Every object's name → resourceVersion as a direct list returns it. */
export async function serverSnapshot(
  client: KubeClient,
  gvr: GroupVersionResource,
  sel: { namespace: string; labelSelector?: string },
): Promise<Snapshot> {
  const list = await client.list(gvr, sel);
  return new Map(list.items.map((o) => [o.metadata.name ?? '', o.metadata.resourceVersion ?? '']));
}

/** '' when equal, else the first differences (for assertion messages). */
export function diffSnapshots(want: Snapshot, got: Snapshot): string {
  const diffs: string[] = [];
  for (const [name, rv] of want)
    if (got.get(name) !== rv) diffs.push(`${name}: want ${rv} got ${got.get(name) ?? '-'}`);
  for (const name of got.keys()) if (!want.has(name)) diffs.push(`${name}: unexpected`);
  return diffs.length === 0 ? '' : `${diffs.length} differences, e.g. ${diffs.slice(0, 5).join('; ')}`;
}
