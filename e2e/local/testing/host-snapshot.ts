/**
 * What the local cluster may touch on the host, captured so a test can diff it before `up` and after
 * `down`: our processes (by executable), mount points, network links, iptables chains and tables (v4/v6),
 * nftables tables, nfacct counters, the sysctls the kubelet and kube-proxy would write plus the
 * forwarding and conntrack ones, the top of every cgroup hierarchy, and the paths written outside the
 * stack dir. Other work on the machine (tests under /tmp) is left out of the mount list.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readMountPoints } from '../../../lib/kernel/host/mounts.ts';
import { attempt } from '../exec.ts';
import { OUTSIDE_PATHS } from '../host.ts';
import { KUBELET_TUNABLES } from '../kubelet-config.ts';

const WATCHED_SYSCTLS = [
  ...Object.keys(KUBELET_TUNABLES),
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/forwarding',
  'net/ipv4/conf/default/forwarding',
  'net/ipv4/conf/all/route_localnet',
  'net/ipv6/conf/all/forwarding',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
  'net/netfilter/nf_conntrack_max',
  'net/netfilter/nf_conntrack_tcp_timeout_established',
  'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
  'net/netfilter/nf_conntrack_udp_timeout',
  'net/netfilter/nf_conntrack_udp_timeout_stream',
  'net/netfilter/nf_conntrack_tcp_be_liberal',
] as const;

/** The node's own programs, wherever they were built. */
const NODE_EXE =
  /\/(kubelet|kube-proxy|kube-scheduler|kube-controller-manager|containerd|containerd-shim-runc-v2|runc)( \(deleted\))?$/;

/**
 * Processes of the stack: the node's programs, anything in a Pod's cgroup, and anything whose command line
 * names the stack dir (its etcd and kube-apiserver; other test control planes on the machine do not).
 */
async function isOurs(pid: string, stackDir: string): Promise<string | undefined> {
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => '');
  if (exe === '') return undefined;
  const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const cg = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
  return NODE_EXE.test(exe) || cg.includes('kubepods') || cmd.includes(stackDir) ? exe : undefined;
}

export interface HostSnapshot {
  processes: string[];
  mounts: string[];
  links: string[];
  iptables: string[];
  nftTables: string[];
  nfacct: string[];
  sysctls: Record<string, string>;
  cgroups: string[];
  outside: Record<string, boolean>;
  run: string[];
}

async function processes(stackDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const exe = await isOurs(e, stackDir);
    if (exe !== undefined) out.push(`${e} ${exe}`);
  }
  return out.sort();
}

async function mounts(): Promise<string[]> {
  return (await readMountPoints()).filter((p) => !p.startsWith('/tmp/')).sort();
}

async function lines(cmd: string, args: string[], keep: (l: string) => boolean): Promise<string[]> {
  return (await attempt(cmd, args)).stdout.split('\n').filter(keep).sort();
}

async function sysctls(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const k of WATCHED_SYSCTLS) {
    out[k] = (await readFile(`/proc/sys/${k}`, 'utf8').catch(() => 'absent')).trim();
  }
  return out;
}

async function cgroups(): Promise<string[]> {
  const out: string[] = [];
  for (const h of await readdir('/sys/fs/cgroup')) {
    const dirs = await readdir(join('/sys/fs/cgroup', h), { withFileTypes: true }).catch(() => []);
    for (const d of dirs) if (d.isDirectory()) out.push(`${h}/${d.name}`);
  }
  return out.sort();
}

export async function hostSnapshot(stackDir: string): Promise<HostSnapshot> {
  const chains = (l: string): boolean => l.startsWith('*') || l.startsWith(':') || l.startsWith('-A');
  return {
    processes: await processes(stackDir),
    mounts: await mounts(),
    links: await lines('ip', ['-o', 'link', 'show'], (l) => l !== '').then((ls) =>
      ls.map((l) => l.split(':')[1]?.trim() ?? ''),
    ),
    iptables: [
      ...(await lines('iptables-save', [], chains)).map((l) => `ip ${l.replace(/\[\d+:\d+\]/, '')}`),
      ...(await lines('ip6tables-save', [], chains)).map((l) => `ip6 ${l.replace(/\[\d+:\d+\]/, '')}`),
    ],
    nftTables: await lines('nft', ['list', 'tables'], (l) => l !== ''),
    nfacct: await lines('nfacct', ['list'], (l) => l !== ''),
    sysctls: await sysctls(),
    cgroups: await cgroups(),
    outside: Object.fromEntries(OUTSIDE_PATHS.map((p) => [p, existsSync(p)])),
    run: (await readdir('/run')).filter((n) => /containerd|kubevirt-ts-|nri|kube/.test(n)).sort(),
  };
}
