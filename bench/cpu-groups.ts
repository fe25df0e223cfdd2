/**
 * CPU time of the local cluster's process groups, for the start benchmark: each Pod's cgroup v1 `cpuacct.usage`
 * (the kubepods tree), the control plane's and the node's processes by /proc/<pid>/stat (all their threads),
 * and the whole machine's busy time from /proc/stat (to see it at rest). Readings are cumulative seconds; a window is the
 * difference of two readings. Also a process's start as wall-clock ms (from its start in clock ticks after boot).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readProcStat } from './stats.ts';

const CPUACCT = '/sys/fs/cgroup/cpuacct/kubepods';
/** USER_HZ: /proc reports times in these ticks on Linux. */
const TICKS_PER_S = 100;

export const CONTROL_PLANE = ['etcd', 'kube-apiserver', 'kube-controller', 'kube-scheduler'];
export const NODE = ['kubelet', 'containerd', 'containerd-shim'];

/** The cgroup directory of a Pod by its uid (any QoS class), or undefined when it has none (yet). */
async function podCgroup(uid: string): Promise<string | undefined> {
  const name = `pod${uid}`;
  for (const dir of [CPUACCT, join(CPUACCT, 'burstable'), join(CPUACCT, 'besteffort')]) {
    if ((await readdir(dir).catch((): string[] => [])).includes(name)) return join(dir, name);
  }
  return undefined;
}

/** Seconds of CPU a Pod used so far; 0 when its cgroup is not there. */
export async function podCpuSeconds(uid: string): Promise<number> {
  const dir = await podCgroup(uid);
  if (dir === undefined) return 0;
  return Number(await readFile(join(dir, 'cpuacct.usage'), 'utf8').catch(() => '0')) / 1e9;
}

/** The processes of a Pod's containers (pause included), by pid. */
export async function podPids(uid: string): Promise<number[]> {
  const dir = await podCgroup(uid);
  if (dir === undefined) return [];
  const pids: number[] = [];
  for (const c of await readdir(dir, { withFileTypes: true })) {
    if (!c.isDirectory()) continue;
    const procs = await readFile(join(dir, c.name, 'cgroup.procs'), 'utf8').catch(() => '');
    pids.push(...procs.split('\n').filter(Boolean).map(Number));
  }
  return pids;
}

async function procInfo(
  pid: number,
): Promise<{ comm: string; cpuSeconds: number; startTicks: number } | undefined> {
  const p = await readProcStat(pid);
  return p && { comm: p.comm, cpuSeconds: p.cpuTicks / TICKS_PER_S, startTicks: p.startTicks };
}

/** Wall-clock ms of the machine's boot, to 10 ms (uptime is read beside Date.now()). */
async function bootMs(): Promise<number> {
  const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]);
  return Date.now() - uptime * 1000;
}

/** When the earliest of these processes started, as wall-clock ms; undefined for none. */
export async function earliestStartMs(
  pids: readonly number[],
  skip: readonly string[],
): Promise<number | undefined> {
  const boot = await bootMs();
  let first: number | undefined;
  for (const pid of pids) {
    const p = await procInfo(pid);
    if (p === undefined || skip.includes(p.comm)) continue;
    const at = boot + (p.startTicks * 1000) / TICKS_PER_S;
    first = first === undefined ? at : Math.min(first, at);
  }
  return first;
}

/** CPU seconds so far of every process whose name starts with one of `names`, by pid. */
export async function processCpu(names: readonly string[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = await procInfo(Number(entry));
    if (p !== undefined && names.some((n) => p.comm.startsWith(n))) out.set(Number(entry), p.cpuSeconds);
  }
  return out;
}

/** Seconds between two processCpu readings; a process new in `after` counts whole. */
export function processCpuDelta(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): number {
  let sum = 0;
  for (const [pid, s] of after) sum += s - (before.get(pid) ?? 0);
  return sum;
}

/** The machine's busy CPU seconds so far, every core (/proc/stat: all but idle and iowait). */
export async function machineBusySeconds(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_S
  );
}

/** CPU seconds so far of these processes, summed by process name. */
export async function processCpuByName(pids: readonly number[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    const p = await procInfo(pid);
    if (p !== undefined) out.set(p.comm, (out.get(p.comm) ?? 0) + p.cpuSeconds);
  }
  return out;
}
