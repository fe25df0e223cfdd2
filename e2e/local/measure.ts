/**
 * `node --import tsx e2e/local/measure.ts [--dir DIR] [--pods N]`: measures a running local cluster:
 * Pod create → Ready for N launcher-like Pods one after another (the project image running `sleep`, the
 * launcher's emptyDirs including the HostToContainer hotplug dir, and the guests' containerDisk as an
 * image volume), p50/p90/max; delete → gone; then the RSS of every process at rest. Prints a table and
 * one JSON line.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { readState } from '../testenv/state.ts';
import { Api } from './kube.ts';
import { IMAGES, layout } from './layout.ts';
import { readLocalState } from './state.ts';
import {
  createNamespace,
  createPod,
  deleteNamespace,
  isReady,
  pod,
  podPath,
  type PodDoc,
} from './testing/pods.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const L = layout(arg('--dir', layout().dir));
const N = Number(arg('--pods', '10'));

function launcherLike(name: string): Record<string, unknown> {
  const dirs = ['private', 'public', 'sockets', 'libvirt-runtime', 'ephemeral-disks', 'hotplug-disks'];
  const mounts: Record<string, unknown>[] = dirs.map((d) => ({ name: d, mountPath: `/var/run/kv/${d}` }));
  mounts[5] = {
    name: 'hotplug-disks',
    mountPath: '/var/run/kv/hotplug-disks',
    mountPropagation: 'HostToContainer',
  };
  mounts.push({ name: 'disk0', mountPath: '/var/run/kubevirt-image-volume/disk_0', readOnly: true });
  return pod(
    name,
    {
      name: 'compute',
      image: IMAGES.virt,
      command: ['/usr/bin/tini', '--', 'sleep', '3600'],
      volumeMounts: mounts,
    },
    {
      volumes: [
        ...dirs.map((d) => ({ name: d, emptyDir: {} })),
        { name: 'disk0', image: { reference: IMAGES.guestDisk, pullPolicy: 'Never' } },
      ],
    },
  );
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function rssMb(pid: number): Promise<number> {
  const st = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
}

/** RSS of every process running the given executable, in MB. */
async function rssOfExe(exe: string): Promise<number[]> {
  const out: number[] = [];
  for (const e of await readdir('/proc')) {
    if (/^\d+$/.test(e) && (await readlink(`/proc/${e}/exe`).catch(() => '')) === exe)
      out.push(await rssMb(Number(e)));
  }
  return out;
}

async function main(): Promise<void> {
  const s = await readLocalState(L.state);
  if (s === undefined) throw new Error(`no local cluster in ${L.dir}`);
  const api = await Api.fromKubeconfig(s.kubeconfig);
  const ns = newNamespaceName('measure');
  await createNamespace(api, ns);
  const ready: number[] = [];
  const gone: number[] = [];
  for (let i = 0; i < N; i++) {
    const name = `launcher-${i}`;
    const t = realClock.now();
    await createPod(api, ns, launcherLike(name));
    await waitFor(
      async () => (isReady(await api.get<PodDoc>(podPath(ns, name))) ? true : undefined),
      `${name} Ready`,
      { timeoutMs: 120_000 },
    );
    ready.push(realClock.now() - t);
  }
  const shim = join(dirname(s.processes.containerd?.bin ?? ''), 'containerd-shim-runc-v2');
  const shims = await rssOfExe(shim);
  for (let i = 0; i < N; i++) {
    const name = `launcher-${i}`;
    const t = realClock.now();
    await api.remove(`${podPath(ns, name)}?gracePeriodSeconds=1`);
    await waitFor(
      async () => ((await api.find(podPath(ns, name))) === undefined ? true : undefined),
      `${name} gone`,
      { timeoutMs: 120_000 },
    );
    gone.push(realClock.now() - t);
  }
  await deleteNamespace(api, ns);
  await realClock.sleep(15_000);
  const cp = await readState(s.controlPlaneState);
  const pids: Record<string, number> = { etcd: cp.etcd.pid, 'kube-apiserver': cp.apiserver.pid };
  for (const [k, p] of Object.entries(s.processes)) pids[k] = p.pid;
  const rss: Record<string, number> = {};
  for (const [k, pid] of Object.entries(pids)) rss[k] = await rssMb(pid);
  const res = {
    pods: N,
    readyMs: { p50: pct(ready, 50), p90: pct(ready, 90), max: Math.max(...ready), all: ready },
    deleteToGoneMs: { p50: pct(gone, 50), max: Math.max(...gone) },
    rssMb: rss,
    shimsWithPodsRunning: { count: shims.length, totalMb: shims.reduce((a, b) => a + b, 0) },
  };
  console.log(
    `Pod create -> Ready (${N} launcher-like Pods): p50 ${res.readyMs.p50} ms, p90 ${res.readyMs.p90} ms, max ${res.readyMs.max} ms`,
  );
  console.log(`Pod delete -> gone: p50 ${res.deleteToGoneMs.p50} ms, max ${res.deleteToGoneMs.max} ms`);
  console.log(
    `containerd shims with ${N} Pods running: ${shims.length}, ${res.shimsWithPodsRunning.totalMb} MB RSS in all`,
  );
  for (const [k, v] of Object.entries(rss)) console.log(`RSS at rest ${k.padEnd(24)} ${v} MB`);
  console.log(JSON.stringify(res));
}

await main();
