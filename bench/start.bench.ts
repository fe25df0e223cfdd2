/**
 * `npm run bench -- start`, on the local cluster with the roles installed by the operator: where one VM's start
 * goes. The shipped example VM (pod network included) is created on an idle node, one at a time, RUNS times;
 * each run is timed from its create call through the stages seen by watches (VMI, launcher Pod, Pod
 * conditions), the launcher's start (its processes' start in /proc, its log lines' own times) and the VMI and
 * VM Running, with the CPU seconds each process group used over the same window (created → VMI Running):
 * the launcher Pod and the role Pods by cgroup v1 accounting, the control plane and the node agents by
 * /proc/<pid>/stat (the whole machine's /proc/stat is no measure here: a background guest, such as ./dev run's,
 * yields CPU to the start). Each run begins once the machine is at rest. Medians are reported. The 20-VM figure is `npm run bench -- e2e`.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '../lib/kubevirt/core/pod.ts';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../lib/kubevirt/index.ts';
import { PODS } from '../lib/kernel/kube/index.ts';
import type { GroupVersionResource, KubeObject } from '../lib/kernel/kube/types.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { layout } from '../e2e/local/layout.ts';
import { useLocalCluster } from '../e2e/local/testing/cluster.ts';
import { ensureNamespace, VIRT_NAMESPACE } from '../e2e/local/virt-install.ts';
import { deleteNamespace, shippedExampleVm, virtClients, type VirtClients } from '../e2e/local/virt.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import {
  CONTROL_PLANE,
  earliestStartMs,
  machineBusySeconds,
  NODE,
  podCpuSeconds,
  podPids,
  processCpu,
  processCpuByName,
  processCpuDelta,
} from './cpu-groups.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const RUNS = 3;
const IDLE_MS = 3000;
const TIMEOUT_MS = 180_000;

/** The launcher's log lines that mark its stages, by their message (and event for domain events). */
const LAUNCHER_MARKS: readonly (readonly [stage: string, match: (l: Record<string, unknown>) => boolean])[] =
  [
    ['launcher: libvirt daemons up', (l) => l['msg'] === 'launcher libvirt started'],
    ['launcher: ready (Cmd socket)', (l) => l['msg'] === 'launcher ready'],
    ['launcher: accelerator chosen', (l) => l['msg'] === 'accelerator chosen'],
    ['launcher: first sync', (l) => l['msg'] === 'sync planned'],
    ['launcher: domain defined', (l) => l['msg'] === 'domain event' && l['event'] === 'defined'],
    ['launcher: domain started', (l) => l['msg'] === 'domain started'],
  ];

/** The stages in the order they happen; each is ms after the create call. */
const ORDER = [
  'VM created (admission)',
  'VMI created (controller)',
  'launcher Pod created (controller)',
  'Pod scheduled (scheduler)',
  'launcher process started (kubelet, containerd)',
  ...LAUNCHER_MARKS.map(([s]) => s),
  'VMI Running (handler report)',
  'VM Running (controller)',
] as const;

type Marks = Map<string, number>;

interface Watch<T extends KubeObject> {
  readonly gvr: GroupVersionResource;
  readonly see: (o: T, now: number) => void;
}

/** Hands every added or changed object of the namespace to `see`, until the signal aborts. */
async function watchFor<T extends KubeObject>(
  c: VirtClients,
  ns: string,
  w: Watch<T>,
  signal: AbortSignal,
): Promise<void> {
  for await (const e of c.kv.watch<T>(w.gvr, { namespace: ns }, signal)) {
    if (e.type === 'ADDED' || e.type === 'MODIFIED') w.see(e.object, Date.now());
  }
}

const mark = (m: Marks, stage: string, at: number): void => {
  if (!m.has(stage)) m.set(stage, at);
};

function seePod(m: Marks, pod: Pod, now: number): void {
  mark(m, 'launcher Pod created (controller)', now);
  if (pod.status?.conditions?.some((x) => x.type === 'PodScheduled' && x.status === 'True'))
    mark(m, 'Pod scheduled (scheduler)', now);
}

/** The launcher's log, read from the kubelet's files: each marked line at its CRI timestamp. */
async function launcherLogMarks(podLogs: string, ns: string, uid: string, m: Marks): Promise<void> {
  const dir = (await readdir(podLogs)).find((d) => d.startsWith(`${ns}_`) && d.endsWith(`_${uid}`));
  if (dir === undefined) return;
  const text = await readFile(join(podLogs, dir, 'compute', '0.log'), 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    const json = line.slice(line.indexOf('{'));
    if (space < 0 || !json.startsWith('{')) continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(json) as Record<string, unknown>;
    } catch {
      continue;
    }
    for (const [stage, match] of LAUNCHER_MARKS)
      if (match(parsed)) mark(m, stage, Date.parse(line.slice(0, space)));
  }
}

interface Cpu {
  launcherPod: number;
  /** The launcher Pod's living processes by name (threads included). */
  launcherProcesses: Map<string, number>;
  roles: number;
  controlPlane: number;
  node: number;
}

interface CpuReading {
  roles: number;
  controlPlane: Map<number, number>;
  node: Map<number, number>;
}

/** Waits for the machine at rest: its busy cores over 3 s windows until two agree within 0.05 (a teardown ended). */
async function settle(): Promise<void> {
  const rate = async (): Promise<number> => {
    const from = { busy: await machineBusySeconds(), at: Date.now() };
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return ((await machineBusySeconds()) - from.busy) / ((Date.now() - from.at) / 1000);
  };
  let last = await rate();
  for (let i = 0; i < 20; i++) {
    const now = await rate();
    if (Math.abs(now - last) < 0.05) return;
    last = now;
  }
}

async function rolePodUids(c: VirtClients): Promise<string[]> {
  const pods = await c.direct.list<Pod>(PODS, { namespace: VIRT_NAMESPACE });
  return pods.items.map((p) => p.metadata.uid ?? '');
}

interface AtRunning extends CpuReading {
  pod: number;
  podProcesses: Map<string, number>;
}

async function readAtRunning(roleUids: readonly string[], podUid: string): Promise<AtRunning> {
  const [r, pod, podProcesses] = await Promise.all([
    readCpu(roleUids),
    podCpuSeconds(podUid),
    processCpuByName(await podPids(podUid)),
  ]);
  return { ...r, pod, podProcesses };
}

async function readCpu(roleUids: readonly string[]): Promise<CpuReading> {
  const roles = await Promise.all(roleUids.map(podCpuSeconds));
  return {
    roles: roles.reduce((a, b) => a + b, 0),
    controlPlane: await processCpu(CONTROL_PLANE),
    node: await processCpu(NODE),
  };
}

/** One VM, created → VMI and VM Running: its stage marks (ms after the create call) and the CPU of the window. */
async function oneStart(
  c: VirtClients,
  ns: string,
  name: string,
  podLogs: string,
): Promise<{ marks: Marks; cpu: Cpu }> {
  const roleUids = await rolePodUids(c);
  await settle();
  const vm = await shippedExampleVm(ns, name);
  const marks: Marks = new Map();
  const stop = new AbortController();
  const state: { podUid?: string; atRunning?: Promise<AtRunning> } = {};
  const seeVmi = (vmi: VirtualMachineInstance, now: number): void => {
    mark(marks, 'VMI created (controller)', now);
    if (vmi.status?.phase !== 'Running' || state.atRunning !== undefined) return;
    mark(marks, 'VMI Running (handler report)', now);
    state.atRunning = readAtRunning(roleUids, state.podUid ?? '');
  };
  const seeLauncherPod = (pod: Pod, now: number): void => {
    if (pod.metadata.uid !== undefined) state.podUid ??= pod.metadata.uid;
    seePod(marks, pod, now);
  };
  const seeVm = (v: VirtualMachine, now: number): void => {
    if (v.status?.printableStatus === 'Running') mark(marks, 'VM Running (controller)', now);
  };
  const watches = [
    watchFor(c, ns, { gvr: VIRTUAL_MACHINE_INSTANCES, see: seeVmi }, stop.signal),
    watchFor(c, ns, { gvr: PODS, see: seeLauncherPod }, stop.signal),
    watchFor(c, ns, { gvr: VIRTUAL_MACHINES, see: seeVm }, stop.signal),
  ];
  await new Promise((r) => setTimeout(r, 300)); // the watches open
  const before = await readCpu(roleUids);
  const t0 = Date.now();
  await c.kv.create(VIRTUAL_MACHINES, vm);
  mark(marks, 'VM created (admission)', Date.now());
  await waitFor(
    () => marks.has('VM Running (controller)') && state.atRunning !== undefined,
    `${name} Running`,
    {
      timeoutMs: TIMEOUT_MS,
      intervalMs: 20,
    },
  );
  const after = await (state.atRunning as Promise<AtRunning>);
  stop.abort();
  await Promise.allSettled(watches);
  const podUid = state.podUid ?? '';
  const started = await earliestStartMs(await podPids(podUid), ['pause']);
  if (started !== undefined) mark(marks, 'launcher process started (kubelet, containerd)', started);
  await launcherLogMarks(podLogs, ns, podUid, marks);
  const relative: Marks = new Map([...marks].map(([k, v]) => [k, v - t0]));
  return {
    marks: relative,
    cpu: {
      launcherPod: after.pod,
      launcherProcesses: after.podProcesses,
      roles: after.roles - before.roles,
      controlPlane: processCpuDelta(before.controlPlane, after.controlPlane),
      node: processCpuDelta(before.node, after.node),
    },
  };
}

function rows(runs: readonly { marks: Marks; cpu: Cpu }[]): BenchRow[] {
  const at = (stage: string): number => median(runs.map((r) => r.marks.get(stage) ?? NaN));
  const out: BenchRow[] = [];
  let prev = 0;
  for (const stage of ORDER) {
    const t = at(stage);
    out.push({
      name: `start: ${stage}`,
      value: t / 1000,
      unit: 's',
      note: `+${((t - prev) / 1000).toFixed(3)} s${stage === 'VM Running (controller)' ? '; target ≤ 1.5 s' : ''}`,
    });
    if (!Number.isNaN(t)) prev = t;
  }
  const cpu = (k: Exclude<keyof Cpu, 'launcherProcesses'>): number => median(runs.map((r) => r.cpu[k]));
  out.push(
    {
      name: 'start CPU: launcher Pod + roles + control plane + node',
      value: median(runs.map((r) => r.cpu.launcherPod + r.cpu.roles + r.cpu.controlPlane + r.cpu.node)),
      unit: 'CPU-s',
      note: 'target ≤ 2.0',
    },
    { name: 'start CPU: launcher Pod (launcher, libvirt, QEMU)', value: cpu('launcherPod'), unit: 'CPU-s' },
    ...[...(runs[0]?.cpu.launcherProcesses.keys() ?? [])].map((comm) => ({
      name: `start CPU: launcher Pod, ${comm}`,
      value: median(runs.map((r) => r.cpu.launcherProcesses.get(comm) ?? 0)),
      unit: 'CPU-s',
    })),
    {
      name: "start CPU: launcher Pod, exited (libvirt's QEMU probes)",
      value: median(
        runs.map((r) => r.cpu.launcherPod - [...r.cpu.launcherProcesses.values()].reduce((a, b) => a + b, 0)),
      ),
      unit: 'CPU-s',
    },
    { name: 'start CPU: role Pods (operator, api, controller, handler)', value: cpu('roles'), unit: 'CPU-s' },
    {
      name: 'start CPU: control plane (etcd, apiserver, controller-manager, scheduler)',
      value: cpu('controlPlane'),
      unit: 'CPU-s',
    },
    { name: 'start CPU: node (kubelet, containerd, shims)', value: cpu('node'), unit: 'CPU-s' },
  );
  return out;
}

export default async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const c = await useLocalCluster({ virt: 'installed' });
  const clients = virtClients(c.kubeconfig, 'kubevirt-ts/bench-start');
  const ns = newNamespaceName('bench-start');
  const podLogs = layout(c.dir).kubelet.podLogs;
  try {
    await ensureNamespace(clients, ns);
    const runs: { marks: Marks; cpu: Cpu }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const name = `start-${i}`;
      runs.push(await oneStart(clients, ns, name, podLogs));
      ctx.log(
        `start: ${name} Running at ${((runs.at(-1)?.marks.get('VM Running (controller)') ?? NaN) / 1000).toFixed(2)} s`,
      );
      await clients.kv.delete(VIRTUAL_MACHINES, name, { namespace: ns });
      await waitFor(
        async () => (await clients.kv.list(PODS, { namespace: ns })).items.length === 0,
        `${name}'s launcher Pod gone`,
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    }
    return rows(runs);
  } finally {
    await deleteNamespace(clients, ns, 300_000);
    await clients.close();
    await c.release();
  }
}
