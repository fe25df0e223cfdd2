/**
 * Controller throughput and API writes: N VMs with runStrategy Always are created at once
 * (64 in flight) on the real control plane, with the VM and VMI controllers running in this process through
 * the rewriter rules; Pods are not run. Measured: time until every VM has a VMI and a launcher Pod, the
 * resulting object rate (VM + VMI + Pod per VM) against a plain client creating the same 3N objects the same
 * way in the same run, per-VM latency from the VM create to its Pod being seen, and the API server's own
 * apiserver_request_total deltas per VM by resource and verb, once the controllers have settled.
 * A third run has the api's VM mutating webhook in front of its namespace, so the VM controller's finalizer is
 * added at admission.
 * KubeVirt's figures to compare with: ~1 VMI/s at its default QPS 5, 17 VMI/s at QPS 400; thresholds: VMI
 * PATCH ≤ 2 × Pod creates, VMI UPDATE ≤ 10 × Pod creates.
 */
import { Registry } from 'prom-client';
import { newNamespaceName } from '../testenv/handle.ts';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../lib/kubevirt/gvr.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../lib/kubevirt/index.ts';
import { installCrds } from '../lib/operator/apply/install-crds.ts';
import { startControllers } from '../lib/controller/start.ts';
import { newLauncherPod } from '../lib/controller/vmi/launcher-pod.ts';
import { mapConcurrent } from '../lib/kernel/informer/testing/cluster.ts';
import { HttpKubeClient, loadRestConfig, NAMESPACES, PODS } from '../lib/kernel/kube/index.ts';
import type { KubeClient } from '../lib/kernel/kube/index.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { rewritingClient } from '../lib/rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../lib/rename/index.ts';
import { vmMutatingWebhook } from './admission.ts';
import type { BenchContext, BenchRow } from './table.ts';

const N = Number(process.env['KV_BENCH_VMS'] ?? 1000);
const IN_FLIGHT = 64;
const WORKERS = Number(process.env['KV_BENCH_WORKERS'] ?? 10);
/** The controller role's default client limits (cmd/controller.ts). */
const QPS = 1000;
const BURST = 2000;
const LAUNCHER = { image: 'registry.example/kubevirt-ts/virt:bench' };
const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type Counts = Map<string, number>;

/** apiserver_request_total write counts by 'resource[/subresource] VERB'. */
async function writeCounts(client: KubeClient): Promise<Counts> {
  const text = await client.request<string>({ method: 'GET', path: '/metrics' });
  const out: Counts = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels: Record<string, string> = {};
    for (const m of line.matchAll(/(\w+)="([^"]*)"/g)) labels[m[1] ?? ''] = m[2] ?? '';
    const verb = labels['verb'] ?? '';
    if (!WRITE_VERBS.has(verb)) continue;
    const sub = labels['subresource'] ? `/${labels['subresource']}` : '';
    const key = `${labels['resource'] ?? ''}${sub} ${verb}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

function delta(before: Counts, after: Counts): Counts {
  const out: Counts = new Map();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out.set(k, v - (before.get(k) ?? 0));
  return out;
}

const total = (c: Counts): number => [...c.values()].reduce((a, b) => a + b, 0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;

/** Waits until the API server's write counters stop moving for 3 polls in a row. */
async function settle(client: KubeClient): Promise<Counts> {
  let last = await writeCounts(client);
  for (let quiet = 0; quiet < 3;) {
    await sleep(700);
    const now = await writeCounts(client);
    quiet = total(now) - total(last) <= 0 ? quiet + 1 : 0;
    last = now;
  }
  return last;
}

function vm(ns: string, i: number): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: `vm-${i}`, namespace: ns },
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: { app: 'bench' } },
        spec: {
          domain: {
            cpu: { cores: 1 },
            resources: { requests: { memory: '90Mi', cpu: '100m' } },
            devices: { interfaces: [{ name: 'default', masquerade: {} }] },
          },
          networks: [{ name: 'default', pod: {} }],
        },
      },
    },
  };
}

/** The same 3N objects the controllers end up with, created by a plain client: objects per second. */
async function plainClient(kv: KubeClient, ns: string): Promise<number> {
  const t0 = performance.now();
  await mapConcurrent(
    Array.from({ length: N }, (_, i) => i),
    IN_FLIGHT,
    async (i) => {
      const v = vm(ns, i);
      await kv.create(VIRTUAL_MACHINES, v);
      const vmi = await kv.create<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: v.metadata.name ?? '', namespace: ns },
        spec: v.spec.template.spec,
      });
      await kv.create(PODS, newLauncherPod(vmi, LAUNCHER));
    },
  );
  return (3 * N) / ((performance.now() - t0) / 1000);
}

interface ControllerRun {
  /** CPU seconds this process used per wall second until every Pod was seen (bench client included). */
  cpu: number;
  seconds: number;
  /** When the bench's own VM creates had all returned. */
  createsDone: number;
  latencies: number[];
  vmiLatencies: number[];
  writes: Counts;
  /** Writes until every Pod was seen (Events wait while the controllers are busy). */
  writesUntilDone: Counts;
}

async function withControllers(direct: HttpKubeClient, kv: KubeClient, ns: string): Promise<ControllerRun> {
  const ac = new AbortController();
  const controllers = startControllers({
    client: kv,
    namespace: ns,
    workers: WORKERS,
    log: nopLogger,
    registry: new Registry(),
    signal: ac.signal,
    launcher: LAUNCHER,
  });
  await controllers.ready;
  const before = await writeCounts(direct);
  const createdAt = new Map<string, number>();
  const latencies: number[] = [];
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((r) => (resolveAll = r));
  // Observed through the controllers' own informers: a watch of the bench's own would add API server load the
  // plain client's run does not have.
  controllers.informers.informer(PODS).addEventHandler({
    onAdd: (pod) => {
      const name = /^virt-launcher-(.*)-[0-9a-f]{5}$/.exec(pod.metadata.name ?? '')?.[1] ?? '';
      latencies.push(performance.now() - (createdAt.get(name) ?? NaN));
      if (latencies.length === N) resolveAll();
    },
  });
  const vmiLatencies: number[] = [];
  controllers.informers.informer(VIRTUAL_MACHINE_INSTANCES).addEventHandler({
    onAdd: (vmi) => vmiLatencies.push(performance.now() - (createdAt.get(vmi.metadata.name ?? '') ?? NaN)),
  });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await mapConcurrent(
    Array.from({ length: N }, (_, i) => i),
    IN_FLIGHT,
    async (i) => {
      createdAt.set(`vm-${i}`, performance.now());
      await kv.create(VIRTUAL_MACHINES, vm(ns, i));
    },
  );
  const createsDone = (performance.now() - t0) / 1000;
  await all;
  const seconds = (performance.now() - t0) / 1000;
  const atDone = await writeCounts(direct);
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6 / seconds;
  const vmis = await kv.list(VIRTUAL_MACHINE_INSTANCES, { namespace: ns });
  if (vmis.items.length !== N) throw new Error(`expected ${N} VMIs, found ${vmis.items.length}`);
  const after = await settle(direct);
  ac.abort();
  await controllers.done;
  const writesUntilDone = delta(before, atDone);
  return {
    cpu,
    seconds,
    createsDone,
    latencies,
    vmiLatencies,
    writes: delta(before, after),
    writesUntilDone,
  };
}

function writeRows(writes: Counts): BenchRow[] {
  const per = (key: string): number => (writes.get(key) ?? 0) / N;
  const podCreates = writes.get('pods POST') ?? 0;
  const vmiKey = (verb: string): number =>
    [...writes]
      .filter(
        ([k]) => k.startsWith('internalvirtualizationvirtualmachineinstances') && k.endsWith(` ${verb}`),
      )
      .reduce((a, [, v]) => a + v, 0);
  const rows: BenchRow[] = [...writes]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, count]) => ({ name: `writes per VM: ${key}`, value: count / N, unit: 'requests/VM' }));
  rows.push(
    {
      name: 'writes per VM: all',
      value: total(writes) / N,
      unit: 'requests/VM',
      note: 'apiserver_request_total, after settling',
    },
    {
      name: 'VMI PATCH / Pod create',
      value: vmiKey('PATCH') / podCreates,
      unit: 'ratio',
      note: 'KubeVirt threshold ≤ 2',
    },
    {
      name: 'VMI UPDATE / Pod create',
      value: vmiKey('PUT') / podCreates,
      unit: 'ratio',
      note: 'KubeVirt threshold ≤ 10',
    },
  );
  if (per('pods POST') !== 1)
    rows.push({ name: 'Pod creates per VM (expected 1)', value: per('pods POST'), unit: 'requests/VM' });
  return rows;
}

export default async function controllerBench(ctx: BenchContext): Promise<BenchRow[]> {
  const direct = new HttpKubeClient(
    loadRestConfig({ kubeconfig: ctx.kubeconfigPath, qps: QPS, burst: BURST }),
  );
  const kv = rewritingClient(direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  await installCrds(direct);
  const plainNs = newNamespaceName('bench-ctl-plain');
  const ctlNs = newNamespaceName('bench-ctl');
  const admNs = newNamespaceName('bench-ctl-adm');
  const namespaces = [plainNs, ctlNs, admNs];
  for (const name of namespaces) await direct.create(NAMESPACES, { metadata: { name } });
  try {
    ctx.log(`plain client: ${N} × (VM, VMI, Pod) in ${plainNs}`);
    const plainRate = await plainClient(kv, plainNs);
    ctx.log(`controllers: ${N} VMs in ${ctlNs}`);
    const run = await withControllers(direct, kv, ctlNs);
    ctx.log(`controllers with the api's VM mutating webhook (the finalizer at admission): ${N} VMs in ${admNs}`);
    const unhook = await vmMutatingWebhook(ctx.kubeconfigPath, direct, admNs);
    const admitted = await withControllers(direct, kv, admNs).finally(unhook);
    const rate = (3 * N) / run.seconds;
    const admittedRate = (3 * N) / admitted.seconds;
    const note = `${N} VMs, ${IN_FLIGHT} creates in flight, ${WORKERS} workers, client QPS ${QPS}/${BURST}`;
    return [
      { name: 'all VMs have a VMI and a Pod', value: run.seconds, unit: 's', note },
      {
        name: 'VMIs (with Pod) per second',
        value: N / run.seconds,
        unit: 'VMI/s',
        note: 'KubeVirt: ~1 at QPS 5, 17 at QPS 400',
      },
      { name: 'object rate with controllers', value: rate, unit: 'objects/s', note: 'VM + VMI + Pod per VM' },
      {
        name: 'object rate, plain client',
        value: plainRate,
        unit: 'objects/s',
        note: 'same 3N objects, same run',
      },
      { name: 'controllers / plain client', value: rate / plainRate, unit: 'ratio', note: 'target ≥ 0.5' },
      {
        name: 'object rate with controllers, finalizer at admission',
        value: admittedRate,
        unit: 'objects/s',
        note: "the api's VM mutating webhook through the rewriter's webhook proxy",
      },
      {
        name: 'controllers with admission / plain client',
        value: admittedRate / plainRate,
        unit: 'ratio',
        note: 'target ≥ 0.5',
      },
      {
        name: 'VM PATCHes per VM, finalizer at admission / in the controller',
        value:
          (admitted.writes.get('internalvirtualizationvirtualmachines PATCH') ?? 0) /
          Math.max(1, run.writes.get('internalvirtualizationvirtualmachines PATCH') ?? 0),
        unit: 'ratio',
      },
      {
        name: 'this process, CPU per wall second',
        value: run.cpu,
        unit: 'cores',
        note: 'controllers + bench client',
      },
      { name: 'bench VM creates done after', value: run.createsDone, unit: 's' },
      { name: 'VM create → VMI seen, p50', value: pct(run.vmiLatencies, 0.5), unit: 'ms' },
      { name: 'VM create → Pod seen, p50', value: pct(run.latencies, 0.5), unit: 'ms' },
      { name: 'VM create → Pod seen, p95', value: pct(run.latencies, 0.95), unit: 'ms' },
      ...writeRows(run.writes),
      {
        name: 'writes per VM until every Pod was seen',
        value: total(run.writesUntilDone) / N,
        unit: 'requests/VM',
        note: `events ${((run.writesUntilDone.get('events POST') ?? 0) / N).toFixed(2)}: they wait while busy`,
      },
    ];
  } finally {
    for (const name of namespaces) await direct.delete(NAMESPACES, name).catch(() => undefined);
    await direct.destroy();
  }
}
