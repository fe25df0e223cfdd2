/**
 * The host side of the node: our bridge (with the node IP and the Service route), the kubelet root as a
 * shared bind mount, and the removal of what runs leave outside the stack dir: mounts under it, cgroup
 * dirs the kubelet and containerd made in every hierarchy, libcni's cache, the kubelet's hard-coded
 * device-plugins dir, runc/shim leftovers in /run. Paths that existed before the first `up` are kept.
 */
import { existsSync } from 'node:fs';
import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readMountPoints } from '../../lib/kernel/host/mounts.ts';
import { attempt, run } from './exec.ts';
import { NETWORK } from './layout.ts';

/** Written outside the stack dir by libcni, the kubelet, containerd 2 and runc. */
export const OUTSIDE_PATHS = [
  '/var/lib/cni',
  '/var/lib/kubelet',
  '/run/containerd',
  '/var/run/nri',
  '/usr/libexec/kubernetes',
  '/etc/cni',
] as const;

export function existedMap(): Record<string, boolean> {
  return Object.fromEntries(OUTSIDE_PATHS.map((p) => [p, existsSync(p)]));
}

export async function bridgeExists(): Promise<boolean> {
  return (await attempt('ip', ['link', 'show', 'dev', NETWORK.bridge])).code === 0;
}

export async function createBridge(): Promise<void> {
  const br = NETWORK.bridge;
  if (!(await bridgeExists())) await run('ip', ['link', 'add', br, 'type', 'bridge']);
  await run('ip', ['addr', 'replace', `${NETWORK.nodeIp}/${NETWORK.prefix}`, 'dev', br]);
  await run('ip', ['link', 'set', br, 'up']);
  await run('ip', ['route', 'replace', NETWORK.serviceCidr, 'dev', br, 'src', NETWORK.nodeIp]);
}

/** Deletes leftover veths of the bridge, then the bridge (its addresses and routes go with it). */
export async function deleteBridge(): Promise<void> {
  if (!(await bridgeExists())) return;
  const out = await run('ip', ['-o', 'link', 'show', 'master', NETWORK.bridge]);
  for (const m of out.matchAll(/^\d+: ([^@:]+)/gm)) {
    if (m[1] !== undefined) await attempt('ip', ['link', 'del', m[1]]);
  }
  await run('ip', ['link', 'del', NETWORK.bridge]);
}

/** Mount points at or under dir, deepest first. */
async function mountsUnder(dir: string): Promise<string[]> {
  const points = (await readMountPoints()).filter((p) => p === dir || p.startsWith(`${dir}/`));
  return points.sort((a, b) => b.length - a.length);
}

/** Unmounts everything under dir (several passes: stacked mounts show one at a time). */
export async function unmountUnder(dir: string): Promise<number> {
  let n = 0;
  for (let pass = 0; pass < 5; pass++) {
    const points = await mountsUnder(dir);
    if (points.length === 0) return n;
    for (const p of points) {
      const r = await attempt('umount', [p]);
      if (r.code !== 0) await attempt('umount', ['-l', p]);
      n++;
    }
  }
  return n;
}

export async function sharedBindMount(dir: string): Promise<void> {
  if (!(await mountsUnder(dir)).includes(dir)) await run('mount', ['--bind', dir, dir]);
  await run('mount', ['--make-shared', dir]);
}

const CGROUP_ROOT = '/sys/fs/cgroup';
/** The kubelet's and containerd's, and the second node's cgroupRoot (kvts-local-2). */
const NODE_CGROUPS = /^(kubepods.*|k8s\.io|kvts-.*)$/;

async function rmTree(dir: string): Promise<number> {
  let n = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) if (e.isDirectory()) n += await rmTree(join(dir, e.name));
  await rmdir(dir).then(
    () => n++,
    () => undefined,
  );
  return n;
}

/** The kubelet's and containerd's cgroup dirs (kubepods*, k8s.io) at the top of every hierarchy. */
async function nodeCgroups(): Promise<string[]> {
  const out: string[] = [];
  for (const h of await readdir(CGROUP_ROOT, { withFileTypes: true }).catch(() => [])) {
    if (!h.isDirectory()) continue;
    for (const c of await readdir(join(CGROUP_ROOT, h.name), { withFileTypes: true }).catch(() => [])) {
      if (c.isDirectory() && NODE_CGROUPS.test(c.name)) out.push(join(CGROUP_ROOT, h.name, c.name));
    }
  }
  return out;
}

export async function removeNodeCgroups(): Promise<number> {
  let n = 0;
  for (const c of await nodeCgroups()) n += await rmTree(c);
  return n;
}

/** Removes what was written outside the stack dir, but only paths that did not exist before the first up. */
export async function removeOutsideLeftovers(
  existed: Record<string, boolean>,
  runDir: string,
): Promise<string[]> {
  const removed: string[] = [];
  for (const p of OUTSIDE_PATHS) {
    if (existed[p] === true || !existsSync(p)) continue;
    await unmountUnder(p);
    await rm(p, { recursive: true, force: true });
    removed.push(p);
  }
  // Inside paths that did exist: only what libcni and the kubelet put there for us.
  for (const p of ['/var/lib/cni/results', '/var/lib/kubelet/device-plugins']) {
    if (existsSync(p) && existed[p.split('/').slice(0, 4).join('/')] === true && !removed.includes(p)) {
      await rm(p, { recursive: true, force: true });
      removed.push(p);
    }
  }
  if (existsSync(runDir)) {
    await unmountUnder(runDir);
    await rm(runDir, { recursive: true, force: true });
    removed.push(runDir);
  }
  return removed;
}
