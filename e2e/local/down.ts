/**
 * `down`: stops the local cluster and leaves the host as the first `up` found it. Pods are deleted first
 * while the kubelet runs (so CNI DEL, volume unmounts and cgroup removal happen the normal way), with the
 * controllers stopped so nothing is re-created; then kube-proxy (and its rules), the kubelet, any task
 * still in containerd, containerd, the control plane; then every mount under the stack dir, our and the
 * node's iptables chains, nfacct counters and tables that were not there before, the bridge, the node's
 * cgroups and the files written outside the stack dir. Processes are stopped by PID only.
 */
import { readdir, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { createLogger, type Logger } from '../../lib/kernel/log/log.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { attachControlPlane } from '../../testenv/controlplane.ts';
import { attempt } from './exec.ts';
import { deleteBridge, removeNodeCgroups, removeOutsideLeftovers, unmountUnder } from './host.ts';
import { removeEmptyTables, removeNodeChains } from './iptables.ts';
import { Api, type List } from './kube.ts';
import { layout } from './layout.ts';
import { removeTasks, running, stopLocal } from './procs.ts';
import { removeSecondNode } from './second-node-down.ts';
import { readLocalState, writeLocalState, type LocalState } from './state.ts';

export interface DownOptions {
  dir?: string;
  log?: Logger;
}

export interface DownResult {
  wasUp: boolean;
  timings: Record<string, number>;
  removed: string[];
}

async function drainPods(api: Api, timeoutMs: number): Promise<number> {
  const ns = await api.get<List>('/api/v1/namespaces');
  for (const n of ns.items) {
    await api.remove(`/api/v1/namespaces/${n.metadata?.name ?? ''}/pods?gracePeriodSeconds=2`);
  }
  const deadline = realClock.now() + timeoutMs;
  for (;;) {
    const left = (await api.get<List>('/api/v1/pods')).items.length;
    if (left === 0 || realClock.now() >= deadline) return left;
    await realClock.sleep(250);
  }
}

/** Force-removes Pod objects the kubelet can no longer clean (it is not running). */
async function forgetPods(api: Api): Promise<void> {
  const pods = await api.get<List>('/api/v1/pods');
  for (const p of pods.items) {
    const path = `/api/v1/namespaces/${p.metadata?.namespace ?? ''}/pods/${p.metadata?.name ?? ''}`;
    await api.remove(`${path}?gracePeriodSeconds=0`);
  }
}

/** PIDs whose executable is our containerd shim (a shim outlives containerd when its task was not deleted). */
async function shimPids(shim: string): Promise<number[]> {
  const out: number[] = [];
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const exe = await readlink(`/proc/${e}/exe`).catch(() => '');
    if (exe === shim) out.push(Number(e));
  }
  return out;
}

async function stopNode(
  s: LocalState,
  api: Api | undefined,
  log: Logger,
  bins: { ctr: string; shim: string },
): Promise<void> {
  const p = s.processes;
  await stopLocal(p.kubeControllerManager);
  await stopLocal(p.kubeScheduler);
  if (api !== undefined && running(p.kubelet)) {
    const left = await drainPods(api, 90_000);
    if (left > 0) log.warning('pods still present after drain', { left });
  }
  if (api !== undefined) await forgetPods(api).catch(() => undefined);
  await stopLocal(p.kubeProxy);
  if (p.kubeProxy !== undefined) await attempt(p.kubeProxy.bin, ['--cleanup']);
  await stopLocal(p.kubelet);
  const sock = join(s.dir, 'containerd', 'containerd.sock');
  if (running(p.containerd)) await removeTasks([bins.ctr, '--address', sock]);
  await stopLocal(p.containerd);
  for (const pid of await shimPids(bins.shim)) await stopProcess(pid, bins.shim, { signal: 'SIGKILL' });
}

async function nfacctLeftovers(before: string[]): Promise<string[]> {
  const out = (await attempt('nfacct', ['list'])).stdout;
  const names = [...out.matchAll(/\} = (\S+);/g)].map((m) => m[1] ?? '').filter((n) => !before.includes(n));
  for (const n of names) await attempt('nfacct', ['del', n]);
  return names;
}

async function step(t: Record<string, number>, name: string, f: () => Promise<void>): Promise<void> {
  const start = realClock.now();
  await f();
  t[name] = realClock.now() - start;
}

export async function down(o: DownOptions = {}): Promise<DownResult> {
  const L = layout(o.dir);
  const log = o.log ?? createLogger({ component: 'local-cluster' });
  const s = await readLocalState(L.state);
  const timings: Record<string, number> = {};
  if (s === undefined) return { wasUp: false, timings, removed: [] };
  const removed: string[] = [];
  const wasUp = s.network || Object.values(s.processes).some((p) => running(p));
  const cp = await attachControlPlane(s.controlPlaneState, log).catch(() => undefined);
  const apiReady = (await cp?.status().catch(() => undefined))?.apiserver.ready === true;
  const api = apiReady ? await Api.fromKubeconfig(s.kubeconfig) : undefined;
  const ctrdDir = s.processes.containerd === undefined ? '' : join(s.processes.containerd.bin, '..');
  const bins = { ctr: join(ctrdDir, 'ctr'), shim: join(ctrdDir, 'containerd-shim-runc-v2') };
  await step(timings, 'second node', async () => {
    removed.push(...(await removeSecondNode(s, api, log, bins.ctr)));
  });
  await step(timings, 'pods and node processes', () => stopNode(s, api, log, bins));
  await step(timings, 'control plane', async () => {
    await cp?.stop();
  });
  await step(timings, 'mounts', async () => {
    removed.push(`${await unmountUnder(L.dir)} mounts`);
    s.kubeletRootMounted = false;
    // No Pod is left: address leases of Pods whose CNI DEL never ran would only shrink the range.
    await rm(join(L.dir, 'cni', 'ipam'), { recursive: true, force: true });
  });
  await step(timings, 'iptables and nfacct', async () => {
    for (const f of ['ip', 'ip6'] as const) {
      removed.push(...(await removeNodeChains(f)).map((t) => `${f} ${t} chains`));
      removed.push(
        ...(await removeEmptyTables(f, s.baseline.iptablesTables[f])).map((t) => `${f} table ${t}`),
      );
    }
    removed.push(...(await nfacctLeftovers(s.baseline.nfacct)).map((n) => `nfacct ${n}`));
  });
  await step(timings, 'bridge, cgroups, leftovers', async () => {
    await deleteBridge();
    s.network = false;
    removed.push(`${await removeNodeCgroups()} cgroup dirs`);
    removed.push(...(await removeOutsideLeftovers(s.baseline.existed, s.runDir)));
  });
  for (const p of Object.values(s.processes)) p.pid = 0;
  await writeLocalState(L.state, s);
  log.info('local cluster down', { dir: L.dir, removed });
  return { wasUp, timings, removed };
}
