/**
 * Takes the second node (second-node.ts) away and leaves the host as before it came: its Pods deleted while its
 * kubelet runs, with a taint no Pod tolerates so that no DaemonSet makes them again (then any left forgotten), and
 * its Node object; kube-proxy, the kubelet, the tasks in its
 * containerd and containerd stopped by PID; then every process still in its namespaces (shims, containers)
 * killed, the veth and the host's route to its Pods deleted, the namespace files unmounted (the namespaces go
 * with their last process, and every mount made in them), its cgroup root removed and its dirs but the
 * certificates deleted. `down` runs this first.
 */
import { readdir, readlink, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import type { Logger } from '../../lib/kernel/log/log.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { attempt } from './exec.ts';
import { unmountUnder } from './host.ts';
import type { Api, List } from './kube.ts';
import { NETWORK, SECOND_NODE } from './layout.ts';
import { removeTasks, running, stopLocal } from './procs.ts';
import { HOST_VETH, inNode, nodeCgroupDir, secondNodeLayout } from './second-node.ts';
import type { LocalState } from './state.ts';

const podsOfNode = `/api/v1/pods?fieldSelector=spec.nodeName%3D${SECOND_NODE.name}`;

/** Keeps new Pods off the node, DaemonSet Pods too (they do not tolerate it), while its Pods are deleted. */
const REMOVING_TAINT = { key: 'kubevirt-ts.local/removing', effect: 'NoSchedule' };

async function drainNode(api: Api, timeoutMs: number): Promise<number> {
  await api.patch(`/api/v1/nodes/${SECOND_NODE.name}`, {
    spec: { unschedulable: true, taints: [REMOVING_TAINT] },
  });
  const pods = (await api.get<List>(podsOfNode)).items;
  for (const p of pods) {
    const path = `/api/v1/namespaces/${p.metadata?.namespace ?? ''}/pods/${p.metadata?.name ?? ''}`;
    await api.remove(`${path}?gracePeriodSeconds=2`);
  }
  const deadline = realClock.now() + timeoutMs;
  for (;;) {
    const left = (await api.get<List>(podsOfNode)).items.length;
    if (left === 0 || realClock.now() >= deadline) return left;
    await realClock.sleep(250);
  }
}

async function forgetNode(api: Api): Promise<void> {
  for (const p of (await api.get<List>(podsOfNode)).items) {
    const path = `/api/v1/namespaces/${p.metadata?.namespace ?? ''}/pods/${p.metadata?.name ?? ''}`;
    await api.remove(`${path}?gracePeriodSeconds=0`);
  }
  await api.remove(`/api/v1/nodes/${SECOND_NODE.name}`);
}

/** The nsfs inodes the namespace files hold while they are bind mounts of namespaces. */
async function namespaceInodes(files: string[]): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const f of files) {
    const st = await stat(f).catch(() => undefined);
    // An unmounted namespace file is an empty regular file of the stack dir: its inode names no namespace.
    const dirDev = (await stat(join(f, '..')).catch(() => undefined))?.dev;
    if (st !== undefined && st.dev !== dirDev) inodes.add(String(st.ino));
  }
  return inodes;
}

/** PIDs whose network or mount namespace is one of the node's. */
async function pidsInNode(files: string[]): Promise<number[]> {
  const inodes = await namespaceInodes(files);
  if (inodes.size === 0) return [];
  const out: number[] = [];
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    for (const kind of ['net', 'mnt']) {
      const link = await readlink(`/proc/${e}/ns/${kind}`).catch(() => '');
      const ino = /\[(\d+)\]/.exec(link)?.[1];
      if (ino !== undefined && inodes.has(ino)) {
        out.push(Number(e));
        break;
      }
    }
  }
  return out;
}

async function exeOf(pid: number): Promise<string | undefined> {
  return readlink(`/proc/${pid}/exe`).catch(() => undefined);
}

/** Removes the second node if the state has one; returns what it removed. */
export async function removeSecondNode(
  s: LocalState,
  api: Api | undefined,
  log: Logger,
  ctr: string,
): Promise<string[]> {
  const st = s.secondNode;
  if (st === undefined) return [];
  const n = secondNodeLayout({ dir: s.dir });
  const removed = await stopNode(s, api, log, ctr);
  if ((await attempt('ip', ['link', 'del', HOST_VETH])).code === 0) removed.push(`veth ${HOST_VETH}`);
  await attempt('ip', ['route', 'del', SECOND_NODE.podCidr, 'dev', NETWORK.bridge]);
  removed.push(`${await unmountUnder(n.nsDir)} namespace mounts`);
  // runc also makes the Pods' cgroups in the unified hierarchy of this hybrid host: every hierarchy is looked at.
  for (const h of await readdir('/sys/fs/cgroup').catch((): string[] => [])) {
    if (await rmCgroupTree(nodeCgroupDir(h))) removed.push(`cgroup ${h}${SECOND_NODE.cgroupRoot ?? ''}`);
  }
  await Promise.all(['stack', 'host', 'ns'].map((d) => rm(join(n.dir, d), { recursive: true, force: true })));
  st.namespaces = false;
  for (const p of Object.values(st.processes)) p.pid = 0;
  return removed;
}

/** The node's Pods, its Node, then every process of it; what it stopped. */
async function stopNode(s: LocalState, api: Api | undefined, log: Logger, ctr: string): Promise<string[]> {
  const st = s.secondNode;
  if (st === undefined) return [];
  const n = secondNodeLayout({ dir: s.dir });
  const removed: string[] = [];
  if (api !== undefined && running(st.processes.kubelet)) {
    const left = await drainNode(api, 60_000);
    if (left > 0) log.warning('pods of the second node still present after drain', { left });
  }
  if (api !== undefined) await forgetNode(api).catch(() => undefined);
  await stopLocal(st.processes.kubeProxy);
  await stopLocal(st.processes.kubelet);
  if (running(st.processes.containerd)) {
    await removeTasks([...inNode(n), ctr, '--address', join(s.dir, 'containerd', 'containerd.sock')]);
  }
  await stopLocal(st.processes.containerd);
  let killed = 0;
  for (const pid of await pidsInNode([n.netNs, n.mntNs])) {
    const exe = await exeOf(pid);
    if (exe !== undefined) await stopProcess(pid, exe, { signal: 'SIGKILL' }).then(() => killed++);
  }
  if (killed > 0) removed.push(`${killed} processes of the second node`);
  return removed;
}

/** rmdir of a cgroup dir and every dir below it, deepest first; true when it was there and is gone. */
async function rmCgroupTree(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return false;
  for (const e of entries) if (e.isDirectory()) await rmCgroupTree(join(dir, e.name));
  return rmdir(dir).then(
    () => true,
    () => false,
  );
}
