/**
 * The operator's install on the local cluster (`npm run bench -- operator`): the KubeVirt resource applied →
 * `Available` with the image already imported (after an uninstall, so every object is made anew); each role
 * container's memory at rest in its own cgroup (the working set: usage less inactive file pages, as the kubelet
 * counts it) beside KubeVirt's published figures and this project's targets; the example VM's created → Running
 * on that install, one VM after another.
 */
import { readFile } from 'node:fs/promises';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../lib/kubevirt/index.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { useLocalCluster } from '../e2e/local/testing/cluster.ts';
import { ensureNamespace, installVirt } from '../e2e/local/virt-install.ts';
import { pidsWhere } from '../e2e/local/testing/procs.ts';
import { rolePods } from '../e2e/local/virt-pods.ts';
import { deleteNamespace, exampleVm, virtClients, type VirtClients } from '../e2e/local/virt.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { percentile } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const VMS = 5;
const MiB = 1024 * 1024;

/** Per container: KubeVirt's published figure and this project's target (MiB). */
const FIGURES: Readonly<Record<string, { kubevirt: string; target: number }>> = {
  'virt-api': { kubevirt: '125–150 MB', target: 100 },
  'virt-controller': { kubevirt: '55–70 MB', target: 80 },
  'virt-handler': { kubevirt: '10–25 MB', target: 80 },
  proxy: { kubevirt: 'kube-api-rewriter (Go) about 27 MB', target: 50 },
  'virt-operator': { kubevirt: '—', target: Number.NaN },
};

/** The memory cgroup (v1) of a container, from a process of it. */
async function memoryCgroup(containerId: string): Promise<string | undefined> {
  for (const pid of pidsWhere(() => true)) {
    const lines = await readFile(`/proc/${String(pid)}/cgroup`, 'utf8').catch(() => '');
    const memory = lines.split('\n').find((l) => l.split(':')[1] === 'memory' && l.includes(containerId));
    if (memory !== undefined) return `/sys/fs/cgroup/memory${memory.split(':')[2] ?? ''}`;
  }
  return undefined;
}

/** The working set of a container's cgroup in MiB: usage less inactive file pages. */
async function workingSetMiB(cgroup: string): Promise<number> {
  const usage = Number(await readFile(`${cgroup}/memory.usage_in_bytes`, 'utf8'));
  const stat = await readFile(`${cgroup}/memory.stat`, 'utf8');
  const inactive = Number(/^total_inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
  return (usage - inactive) / MiB;
}

function memoryRow(container: string, pod: string, mib: number): BenchRow | undefined {
  const figure = FIGURES[container];
  if (figure === undefined) return undefined;
  const targeted = !Number.isNaN(figure.target);
  const target = targeted ? `, target ≤ ${String(figure.target)} MiB` : '';
  const missed = targeted && mib > figure.target ? ' — MISSED' : '';
  return {
    name: `${container} working set at rest (${pod})`,
    value: mib,
    unit: 'MiB',
    note: `KubeVirt: ${figure.kubevirt}${target}${missed}`,
  };
}

async function roleMemory(c: VirtClients): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const pod of await rolePods(c)) {
    for (const st of pod.status?.containerStatuses ?? []) {
      const id = st.containerID?.replace(/^\w+:\/\//, '') ?? '';
      const cgroup = id === '' ? undefined : await memoryCgroup(id);
      const row =
        cgroup === undefined
          ? undefined
          : memoryRow(st.name, pod.metadata.name ?? '', await workingSetMiB(cgroup));
      if (row !== undefined) rows.push(row);
    }
  }
  return rows;
}

/** One VM after another: ms from VM create to its VMI Running. */
async function vmStarts(c: VirtClients, ns: string): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < VMS; i++) {
    const name = `bench-op-${String(i)}`;
    const t = Date.now();
    await c.kv.create(VIRTUAL_MACHINES, await exampleVm(ns, name));
    await waitFor(
      async () => {
        const vmi = await c.kv
          .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: ns })
          .catch(() => undefined);
        return vmi?.status?.phase === 'Running';
      },
      `${name} Running`,
      { timeoutMs: 180_000, intervalMs: 20 },
    );
    ms.push(Date.now() - t);
    await c.kv.delete(VIRTUAL_MACHINES, name, { namespace: ns });
    await waitFor(
      async () => (await c.kv.list(VIRTUAL_MACHINE_INSTANCES, { namespace: ns })).items.length === 0,
      'VMI gone',
      {
        timeoutMs: 120_000,
      },
    );
  }
  return ms;
}

export default async function operatorBench(ctx: BenchContext): Promise<BenchRow[]> {
  // Without the install (taken down when there): the install below makes every object anew.
  const cluster = await useLocalCluster();
  const c = virtClients(cluster.kubeconfig, 'kubevirt-ts/bench-operator');
  const ns = newNamespaceName('bench-operator');
  try {
    ctx.log('installing through the operator');
    const t = Date.now();
    await installVirt(c, { dir: cluster.dir });
    const install = (Date.now() - t) / 1000;
    ctx.log('at rest for 30 s');
    await new Promise((r) => setTimeout(r, 30_000));
    const memory = await roleMemory(c);
    await ensureNamespace(c, ns);
    const starts = await vmStarts(c, ns);
    return [
      { name: 'KubeVirt resource applied → Available (image imported)', value: install, unit: 's' },
      ...memory,
      {
        name: `example VM created → Running on the operator install, p50 of ${String(VMS)}`,
        value: percentile(starts, 50) / 1000,
        unit: 's',
        note: `max ${(Math.max(...starts) / 1000).toFixed(2)} s; with host processes before the operator: 3.0–3.4 s`,
      },
    ];
  } finally {
    await deleteNamespace(c, ns, 180_000);
    await c.close();
    await cluster.release();
  }
}
