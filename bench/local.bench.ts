/**
 * The local cluster (`npm run bench -- local`): `up` after a `down` with every build cached, and `up` when it is
 * already up; launcher Pods made by the controller for the example VM, one after another (VM create → Pod
 * Ready, and → the launcher answering on its socket); the RSS of each cluster process at rest; the image size.
 * It takes the one local stack over (only one can run): a cluster that was up is up again afterwards, one that
 * was not is taken down.
 */
import { stat } from 'node:fs/promises';
import { VIRTUAL_MACHINES } from '../lib/kubevirt/index.ts';
import type { Pod } from '../lib/kubevirt/core/pod.ts';
import { NAMESPACES, PODS } from '../lib/kernel/kube/index.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { newCmdClient } from '../lib/rpc/index.ts';
import { buildImages } from '../e2e/local/builds.ts';
import { down, status, up } from '../e2e/local/cluster.ts';
import { IMAGES, layout } from '../e2e/local/layout.ts';
import { readLocalState } from '../e2e/local/state.ts';
import { controllerHere, type Running } from '../e2e/local/testing/roles.ts';
import {
  exampleVm,
  launcherSocketPath,
  prepareForVirt,
  virtClients,
  type VirtClients,
} from '../e2e/local/virt.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { readState } from '../testenv/state.ts';
import { percentile, procStat } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const VMS = 10;

async function timedMs(f: () => Promise<unknown>): Promise<number> {
  const t = Date.now();
  await f();
  return Date.now() - t;
}

/** One VM after another: ms from VM create to its launcher Pod Ready, and to the launcher answering. */
async function launcherPods(c: VirtClients, ns: string): Promise<{ ready: number[]; listening: number[] }> {
  const ready: number[] = [];
  const listening: number[] = [];
  for (let i = 0; i < VMS; i++) {
    const name = `bench-${i}`;
    const t = Date.now();
    await c.kv.create(VIRTUAL_MACHINES, await exampleVm(ns, name));
    const pod = await waitFor(
      async () => {
        const pods = await c.kv.list<Pod>(PODS, {
          namespace: ns,
          labelSelector: `vm.kubevirt.io/name=${name}`,
        });
        const p = pods.items[0];
        return p?.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') === true && p;
      },
      `${name}'s launcher Pod Ready`,
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    ready.push(Date.now() - t);
    const launcher = await waitFor(
      () => newCmdClient(launcherSocketPath(pod.metadata.uid ?? '')),
      'a launcher',
      {
        timeoutMs: 60_000,
        intervalMs: 20,
      },
    );
    listening.push(Date.now() - t);
    launcher.close();
    await c.kv.delete(VIRTUAL_MACHINES, name, { namespace: ns });
    await waitFor(async () => (await c.kv.list(PODS, { namespace: ns })).items.length === 0, 'Pods gone', {
      timeoutMs: 120_000,
    });
  }
  return { ready, listening };
}

async function restingRss(): Promise<BenchRow[]> {
  const s = await readLocalState(layout().state);
  if (s === undefined) return [];
  const cp = await readState(s.controlPlaneState);
  const pids: Record<string, number> = { etcd: cp.etcd.pid, 'kube-apiserver': cp.apiserver.pid };
  for (const [k, p] of Object.entries(s.processes)) pids[k] = p.pid;
  const rows: BenchRow[] = [];
  for (const [name, pid] of Object.entries(pids)) {
    rows.push({ name: `RSS at rest: ${name}`, value: (await procStat(pid)).rssMiB, unit: 'MiB' });
  }
  return rows;
}

export default async function localBench(ctx: BenchContext): Promise<BenchRow[]> {
  const wasUp = (await status())?.ready === true;
  ctx.log(`local: the stack ${wasUp ? 'is up; taking it down first' : 'is down'}`);
  await down({ log: nopLogger });
  const cold = await timedMs(() => up({ log: nopLogger }));
  const warm = await timedMs(() => up({ log: nopLogger }));
  const kubeconfig = (await up({ log: nopLogger })).kubeconfig;
  const c = virtClients(kubeconfig, 'kubevirt-ts/bench');
  const ns = newNamespaceName('bench-local');
  let controller: Running | undefined;
  try {
    await prepareForVirt(c);
    await c.direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    controller = controllerHere(kubeconfig, ns);
    const pods = await launcherPods(c, ns);
    await controller.stop();
    controller = undefined;
    await c.direct.delete(NAMESPACES, ns);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const image = (await buildImages({}, true)).virt ?? '';
    return [
      {
        name: 'up after down (every build cached)',
        value: cold / 1000,
        unit: 's',
        note: 'cold build: see note',
      },
      { name: 'up when already up (images checked)', value: warm / 1000, unit: 's' },
      {
        name: 'VM create → launcher Pod Ready, p50',
        value: percentile(pods.ready, 50),
        unit: 'ms',
        note: `${VMS} VMs, one at a time`,
      },
      { name: 'VM create → launcher Pod Ready, max', value: Math.max(...pods.ready), unit: 'ms' },
      {
        name: 'VM create → launcher answers on its socket, p50',
        value: percentile(pods.listening, 50),
        unit: 'ms',
        note: 'its libvirt started, TCG chosen',
      },
      ...(await restingRss()),
      {
        name: 'image (OCI archive)',
        value: (await stat(image)).size / 2 ** 20,
        unit: 'MiB',
        note: IMAGES.virt,
      },
    ];
  } finally {
    await controller?.stop().catch(() => undefined);
    await c.close();
    if (!wasUp) await down({ log: nopLogger });
  }
}
