/**
 * Informer event throughput from a real watch against a bare watch decode of the same stream.
 *
 * Before the writes, ROUNDS informers list the (empty) namespace, sync and stop. Then N ConfigMaps are
 * created. Each round then replays the same N ADDED events from the informer's resourceVersion twice: once
 * through client.watch() only (stream + JSON decode), once through a SharedInformer resuming its watch
 * (reflector, cache, indexes, handler), timed until the cache holds all N. Rates are medians over rounds.
 */
import { newNamespaceName } from '../testenv/handle.ts';
import { HttpKubeClient } from '../lib/kernel/kube/client.ts';
import { loadRestConfig } from '../lib/kernel/kube/config.ts';
import { CONFIG_MAPS, NAMESPACES } from '../lib/kernel/kube/resources.ts';
import type { KubeObject } from '../lib/kernel/kube/types.ts';
import { labelIndex, namespaceIndex } from '../lib/kernel/informer/index-funcs.ts';
import { SharedInformer } from '../lib/kernel/informer/informer.ts';
import { mapConcurrent } from '../lib/kernel/informer/testing/cluster.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const N = 5000;
const ROUNDS = 5;

async function bareWatch(client: HttpKubeClient, ns: string, rv: string): Promise<number> {
  const ctrl = new AbortController();
  const start = performance.now();
  let added = 0;
  for await (const ev of client.watch(CONFIG_MAPS, { namespace: ns, resourceVersion: rv }, ctrl.signal)) {
    if (ev.type === 'ERROR') throw new Error(`bare watch: ${ev.object.message ?? ev.object.code}`);
    if (ev.type === 'ADDED' && ++added === N) break;
  }
  const ms = performance.now() - start;
  ctrl.abort();
  if (added !== N) throw new Error(`bare watch ended after ${added} of ${N} events`);
  return ms;
}

async function informerReplay(informer: SharedInformer<KubeObject>): Promise<number> {
  const ctrl = new AbortController();
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((r) => (resolveAll = r));
  const reg = informer.addEventHandler({
    onAdd: () => {
      if (informer.store.size === N) resolveAll();
    },
  });
  const start = performance.now();
  const done = informer.run(ctrl.signal);
  await all;
  const ms = performance.now() - start;
  ctrl.abort();
  await done;
  reg.remove();
  if (informer.stats.relists > 0)
    throw new Error('informer relisted: the watch cache no longer held the start');
  return ms;
}

async function syncedAndStopped(client: HttpKubeClient, ns: string): Promise<SharedInformer<KubeObject>> {
  const informer = new SharedInformer<KubeObject>({
    client,
    gvr: CONFIG_MAPS,
    namespace: ns,
    indexers: { namespace: namespaceIndex, app: labelIndex('app') },
  });
  const ctrl = new AbortController();
  const done = informer.run(ctrl.signal);
  await informer.waitForSync(ctrl.signal);
  ctrl.abort();
  await done;
  return informer;
}

export default async function informerBench(ctx: BenchContext): Promise<BenchRow[]> {
  const client = new HttpKubeClient(loadRestConfig({ kubeconfig: ctx.kubeconfigPath, qps: 0 }));
  const ns = newNamespaceName('bench-informer');
  await client.create(NAMESPACES, { metadata: { name: ns } });
  try {
    const informers: SharedInformer<KubeObject>[] = [];
    for (let i = 0; i < ROUNDS; i++) informers.push(await syncedAndStopped(client, ns));
    ctx.log(`creating ${N} ConfigMaps in ${ns}`);
    const t0 = performance.now();
    await mapConcurrent(
      Array.from({ length: N }, (_, i) => i),
      32,
      (i) =>
        client.create(CONFIG_MAPS, {
          metadata: { name: `cm-${i}`, namespace: ns, labels: { app: `a${i % 10}` } },
          data: { v: String(i) },
        }),
    );
    const createRate = N / ((performance.now() - t0) / 1000);
    const bare: number[] = [];
    const inf: number[] = [];
    for (const informer of informers) {
      bare.push(N / ((await bareWatch(client, ns, informer.lastSyncResourceVersion)) / 1000));
      inf.push(N / ((await informerReplay(informer)) / 1000));
    }
    ctx.log(
      `bare ${bare.map((r) => r.toFixed(0)).join(', ')} ev/s; informer ${inf.map((r) => r.toFixed(0)).join(', ')} ev/s`,
    );
    const note = `${N} ConfigMap ADDED events, median of ${ROUNDS}`;
    return [
      { name: 'informer events into cache', value: median(inf), unit: 'events/s', note },
      { name: 'bare watch decode', value: median(bare), unit: 'events/s', note },
      {
        name: 'informer / bare',
        value: median(inf) / median(bare),
        unit: 'ratio',
        note: 'same run, same stream',
      },
      {
        name: 'ConfigMap creates (setup)',
        value: createRate,
        unit: 'objects/s',
        note: '32 in flight, no QPS limit',
      },
    ];
  } finally {
    await client.delete(NAMESPACES, ns).catch(() => undefined);
    await client.destroy();
  }
}
