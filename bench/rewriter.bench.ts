/**
 * The rewriter proxy against direct access to the same API server, side by side in one run. The proxy is the
 * real role (`virt rewriter`) in a child process; its memory is the child's resident set from /proc (peak
 * VmHWM, reset before each measured list). Objects are written straight to the API server with internal names,
 * so every read through the proxy is restored. Both sides send the same ServiceAccount token (the proxy's TCP
 * port forwards only requests with their own credentials).
 *
 * - GET one VMI: p50/p99 latency (alternating direct/proxy calls).
 * - LIST 1,000 VMIs of about 5 KB, parsed by the client: p50/p99 latency (target: proxy p50 ≤ 1.25× direct).
 * - A watch delivering 10,000 ADDED events (from resourceVersion 0): events/s (target: ≥ 0.8× direct).
 * - LIST 25,600 launcher-sized Pods (about 8 KB): time, MB/s, and the proxy's peak RSS growth over the response
 *   size (target: < 2×); the client streams the body and counts bytes.
 */
import { installCrds } from '../lib/operator/apply/install-crds.ts';
import { INTERNAL_VIRTUAL_MACHINE_INSTANCES } from '../lib/kubevirt/internal-gvr.ts';
import { VIRTUAL_MACHINE_INSTANCES } from '../lib/kubevirt/gvr.ts';
import { mapConcurrent } from '../lib/kernel/informer/testing/cluster.ts';
import {
  HttpKubeClient,
  loadRestConfig,
  NAMESPACES,
  PODS,
  type GroupVersionResource,
  type RestConfig,
} from '../lib/kernel/kube/index.ts';
import { benchVmi, launcherPod } from '../lib/rewriter/proxy/testing/bench-objects.ts';
import { INT } from '../lib/rename/testing/objects.ts';
import { startProxyProcess, type ProxyProcess } from '../lib/rewriter/proxy/testing/proxy-process.ts';
import { clusterAdminToken, type AdminToken } from '../lib/rewriter/proxy/testing/service-account.ts';
import { Upstream } from '../lib/rewriter/proxy/upstream.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import type { BenchContext, BenchRow } from './table.ts';

/** KV_BENCH_REWRITER_SCALE=0.1 runs a tenth of the object counts (a quick check while developing). */
const SCALE = Number(process.env['KV_BENCH_REWRITER_SCALE'] ?? '1');
const LIST_N = Math.round(1000 * SCALE);
const WATCH_N = Math.round(10_000 * SCALE);
const PODS_N = Math.round(25_600 * SCALE);
const CONCURRENCY = 32;
const WATCH_ROUNDS = 9;

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const median = (xs: readonly number[]): number => quantile(xs, 0.5);
/** The median over rounds of proxy / direct, each round's two runs measured back to back. */
const pairedRatio = (m: ReadonlyMap<string, readonly number[]>): number => {
  const direct = m.get('direct') ?? [];
  return median((m.get('proxy') ?? []).map((p, i) => p / (direct[i] ?? NaN)));
};
const MB = 1024 * 1024;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface Side {
  name: 'direct' | 'proxy';
  client: HttpKubeClient;
  raw: Upstream;
  /** The VMI resource as this side names it. */
  vmis: GroupVersionResource;
}

async function create(
  ctx: BenchContext,
  what: string,
  n: number,
  fn: (i: number) => Promise<unknown>,
): Promise<number> {
  const ms = await timed(() =>
    mapConcurrent(
      Array.from({ length: n }, (_, i) => i),
      CONCURRENCY,
      fn,
    ),
  );
  ctx.log(`created ${n} ${what} in ${(ms / 1000).toFixed(1)} s`);
  return (n / ms) * 1000;
}

/** Latencies of `rounds` calls per side; the side that goes first alternates, so drift hits both alike. */
async function alternate(
  sides: readonly Side[],
  rounds: number,
  fn: (s: Side) => Promise<unknown>,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  for (let i = 0; i < rounds; i++)
    for (const s of i % 2 === 0 ? sides : [...sides].reverse())
      out.get(s.name)?.push(await timed(() => fn(s)));
  return out;
}

async function watchAll(s: Side, ns: string): Promise<number> {
  const ac = new AbortController();
  let added = 0;
  const ms = await timed(async () => {
    for await (const ev of s.client.watch(s.vmis, { namespace: ns, resourceVersion: '0' }, ac.signal)) {
      if (ev.type === 'ERROR') throw new Error(`${s.name} watch: ${ev.object.message ?? ''}`);
      if (ev.type === 'ADDED' && ev.object.kind !== s.vmis.kind)
        throw new Error(`${s.name} watch: kind ${ev.object.kind ?? ''}`);
      if (ev.type === 'ADDED' && ++added === WATCH_N) break;
    }
  });
  ac.abort();
  if (added !== WATCH_N) throw new Error(`${s.name} watch ended after ${added} of ${WATCH_N} events`);
  return (WATCH_N / ms) * 1000;
}

/**
 * Streams the Pod list, counting bytes. On the proxy side, checks that the labels came back restored and none is
 * left with its internal name (managedFields keep theirs: the rewriter does not touch fieldsV1).
 */
async function streamPods(s: Side, ns: string): Promise<{ ms: number; bytes: number }> {
  let bytes = 0;
  let tail = '';
  const seen = { restored: false };
  const ms = await timed(async () => {
    const res = await s.raw.request({
      method: 'GET',
      url: `/api/v1/namespaces/${ns}/pods`,
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(300_000),
      as: 'rewriter',
    });
    if (res.statusCode !== 200) throw new Error(`${s.name} pod list: HTTP ${res.statusCode}`);
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (s.name !== 'proxy') continue;
      const text = tail + chunk.toString('latin1');
      if (text.includes(`"${INT}/created-by":"`))
        throw new Error('the proxy left an internal label in the pod list');
      seen.restored ||= text.includes('"kubevirt.io/created-by":"');
      tail = text.slice(-128);
    }
  });
  if (s.name === 'proxy' && !seen.restored) throw new Error('the proxy did not restore the pod labels');
  return { ms, bytes };
}

function sideOf(name: Side['name'], config: RestConfig, vmis: GroupVersionResource): Side {
  return {
    name,
    client: new HttpKubeClient(config, { keepAliveTimeout: 1000 }),
    raw: new Upstream({ config, keepAliveTimeout: 1000 }),
    vmis,
  };
}

async function setup(
  ctx: BenchContext,
  direct: HttpKubeClient,
  ns: Record<'list' | 'watch' | 'pods', string>,
): Promise<BenchRow[]> {
  await installCrds(direct);
  for (const name of Object.values(ns)) await direct.create(NAMESPACES, { metadata: { name } });
  const vmiRate = await create(ctx, `VMIs of ~5 KB`, LIST_N, (i) =>
    direct.create(INTERNAL_VIRTUAL_MACHINE_INSTANCES, benchVmi(`vmi-${i}`, ns.list, 'large') as never),
  );
  await create(ctx, 'VMIs to watch', WATCH_N, (i) =>
    direct.create(INTERNAL_VIRTUAL_MACHINE_INSTANCES, benchVmi(`w-${i}`, ns.watch, 'small') as never),
  );
  const podRate = await create(ctx, 'launcher Pods', PODS_N, (i) =>
    direct.create(PODS, launcherPod(i, ns.pods) as never),
  );
  return [
    { name: 'setup: VMI creates', value: vmiRate, unit: 'objects/s', note: `${CONCURRENCY} in flight` },
    { name: 'setup: Pod creates', value: podRate, unit: 'objects/s', note: `${CONCURRENCY} in flight` },
  ];
}

export default async function rewriterBench(ctx: BenchContext): Promise<BenchRow[]> {
  const config = loadRestConfig({ kubeconfig: ctx.kubeconfigPath, qps: 0 });
  const setupClient = new HttpKubeClient(config);
  const ns = {
    list: newNamespaceName('bench-rw-list'),
    watch: newNamespaceName('bench-rw-watch'),
    pods: newNamespaceName('bench-rw-pods'),
  };
  let proxy: ProxyProcess | undefined;
  let admin: AdminToken | undefined;
  const sides: Side[] = [];
  try {
    const rows = await setup(ctx, setupClient, ns);
    admin = await clusterAdminToken(setupClient, ns.list, 'bench-client');
    proxy = await startProxyProcess(ctx.kubeconfigPath, (l) => {
      ctx.log(`proxy: ${l}`);
    });
    const asAdmin: RestConfig = { ...config, token: admin.token };
    delete asAdmin.cert;
    delete asAdmin.key;
    sides.push(
      sideOf('direct', asAdmin, INTERNAL_VIRTUAL_MACHINE_INSTANCES),
      sideOf(
        'proxy',
        {
          server: `http://127.0.0.1:${proxy.port}`,
          token: admin.token,
          qps: 0,
          burst: 1,
          userAgent: 'bench',
        },
        VIRTUAL_MACHINE_INSTANCES,
      ),
    );
    rows.push(...(await measure(ctx, sides, ns, proxy)));
    return rows;
  } finally {
    await Promise.all(sides.flatMap((s) => [s.client.destroy(), s.raw.destroy()]));
    const code = await proxy?.stop();
    if (code !== undefined && code !== 0) ctx.log(`the proxy exited with ${String(code)}`);
    await admin?.remove().catch(() => undefined);
    for (const name of Object.values(ns)) await setupClient.delete(NAMESPACES, name).catch(() => undefined);
    await setupClient.destroy();
  }
}

async function measure(
  ctx: BenchContext,
  sides: Side[],
  ns: Record<'list' | 'watch' | 'pods', string>,
  proxy: ProxyProcess,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const pair = (what: string, m: Map<string, number[]>, q: number, unit: string): void => {
    for (const s of ['direct', 'proxy'])
      rows.push({ name: `${what} ${s}`, value: quantile(m.get(s) ?? [], q), unit });
  };
  // Warm both paths (connections, JIT) before anything is timed.
  await alternate(sides, 20, (s) => s.client.get(s.vmis, 'vmi-0', { namespace: ns.list }));
  await alternate(sides, 2, (s) => s.client.list(s.vmis, { namespace: ns.list }));

  const gets = await alternate(sides, 300, (s) => s.client.get(s.vmis, 'vmi-1', { namespace: ns.list }));
  pair('GET one VMI p50 (300 calls)', gets, 0.5, 'ms');
  pair('GET one VMI p99 (300 calls)', gets, 0.99, 'ms');

  let vmiBytes = 0;
  const lists = await alternate(sides, 15, async (s) => {
    const l = await s.client.list(s.vmis, { namespace: ns.list });
    vmiBytes = JSON.stringify(l.items).length / LIST_N;
    if (l.items.length !== LIST_N) throw new Error(`${s.name} list: ${l.items.length} items`);
    if (l.items[0]?.kind !== s.vmis.kind)
      throw new Error(`${s.name} list: item kind ${l.items[0]?.kind ?? ''}`);
  });
  rows.push({ name: 'VMI size as listed', value: vmiBytes, unit: 'bytes' });
  pair(`LIST ${LIST_N} VMIs p50 (15 rounds, parsed)`, lists, 0.5, 'ms');
  pair(`LIST ${LIST_N} VMIs p99 (15 rounds, parsed)`, lists, 0.99, 'ms');
  rows.push({
    name: `LIST ${LIST_N} proxy/direct`,
    value: pairedRatio(lists),
    unit: 'ratio',
    note: 'median of per-round ratios; target ≤ 1.25',
  });

  const rates = new Map<string, number[]>([
    ['direct', []],
    ['proxy', []],
  ]);
  // Rounds in pairs, the side that goes first alternating: the machine's load moves both sides of a pair alike.
  for (let i = 0; i < WATCH_ROUNDS; i++)
    for (const s of i % 2 === 0 ? sides : [...sides].reverse())
      rates.get(s.name)?.push(await watchAll(s, ns.watch));
  ctx.log(`watch events/s: ${JSON.stringify(Object.fromEntries(rates))}`);
  pair(`watch ${WATCH_N} events (median of ${WATCH_ROUNDS})`, rates, 0.5, 'events/s');
  rows.push({
    name: 'watch proxy/direct',
    value: pairedRatio(rates),
    unit: 'ratio',
    note: 'median of per-round ratios; target ≥ 0.8',
  });

  rows.push(...(await podList(ctx, sides, ns.pods, proxy)));
  return rows;
}

async function podList(
  ctx: BenchContext,
  sides: Side[],
  ns: string,
  proxy: ProxyProcess,
): Promise<BenchRow[]> {
  const times = new Map<string, number[]>([
    ['direct', []],
    ['proxy', []],
  ]);
  let bytes = 0;
  let growth = 0;
  for (let round = 0; round < 2; round++) {
    for (const s of sides) {
      const before = proxy.rss();
      const peak = s.name === 'proxy' ? proxy.trackPeak() : undefined;
      const r = await streamPods(s, ns);
      if (peak) growth = Math.max(growth, peak() - before);
      if (s.name === 'direct') bytes = r.bytes;
      times.get(s.name)?.push(r.ms);
      ctx.log(`${s.name} pod list: ${(r.bytes / MB).toFixed(1)} MB in ${(r.ms / 1000).toFixed(2)} s`);
    }
  }
  const note = `${PODS_N} Pods, ${(bytes / MB).toFixed(0)} MB, best of 2`;
  const best = (s: string): number => Math.min(...(times.get(s) ?? []));
  return [
    { name: 'Pod size as listed', value: bytes / PODS_N, unit: 'bytes' },
    { name: `LIST ${PODS_N} Pods direct`, value: best('direct'), unit: 'ms', note },
    { name: `LIST ${PODS_N} Pods proxy`, value: best('proxy'), unit: 'ms', note },
    {
      name: `LIST ${PODS_N} Pods throughput direct`,
      value: bytes / MB / (best('direct') / 1000),
      unit: 'MB/s',
      note,
    },
    {
      name: `LIST ${PODS_N} Pods throughput proxy`,
      value: bytes / MB / (best('proxy') / 1000),
      unit: 'MB/s',
      note,
    },
    {
      name: `LIST ${PODS_N} Pods proxy peak RSS growth`,
      value: growth / MB,
      unit: 'MB',
      note: 'child process VmHWM − VmRSS before',
    },
    {
      name: `LIST ${PODS_N} Pods proxy growth / response`,
      value: growth / bytes,
      unit: 'ratio',
      note: 'target < 2',
    },
  ];
}
