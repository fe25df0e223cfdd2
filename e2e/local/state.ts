/**
 * state.json of the local cluster (under the stack dir): the processes it started (PID, the binary
 * /proc must show for that PID, args, log), the ports, and what the host looked like before the first
 * `up` (so `down` removes only what this stack made). Written atomically on every change.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import type { ProcessState } from '../../testenv/state.ts';

export type Component = 'containerd' | 'kubeControllerManager' | 'kubeScheduler' | 'kubelet' | 'kubeProxy';
export const COMPONENTS: readonly Component[] = [
  'containerd',
  'kubeControllerManager',
  'kubeScheduler',
  'kubelet',
  'kubeProxy',
];

export interface LocalProcess extends ProcessState {
  /** What is spawned when it differs from bin (the kubelet starts as `unshare ... sh -c ... exec kubelet`). */
  spawn?: { cmd: string; args: string[] };
}

export interface HostBaseline {
  /** Paths outside the stack dir that runc/containerd/libcni/the kubelet write to, and whether they were there. */
  existed: Record<string, boolean>;
  iptablesTables: { ip: string[]; ip6: string[] };
  nfacct: string[];
}

/** The second node (`up --nodes 2`, second-node.ts): its processes and ports, and whether its namespaces exist. */
export interface SecondNodeState {
  processes: Partial<Record<'containerd' | 'kubelet' | 'kubeProxy', LocalProcess>>;
  ports: { kubeletHealthz: number; proxyHealthz: number; proxyMetrics: number };
  /** Its namespaces, veth, overlays, host route and cgroup root are in place. */
  namespaces: boolean;
}

export interface LocalState {
  version: 1;
  dir: string;
  /** The testenv control plane's state.json. */
  controlPlaneState: string;
  kubeconfig: string;
  server: string;
  /** Short dir under /run for shim sockets and runc state. */
  runDir: string;
  ports: {
    kubelet: number;
    kubeletHealthz: number;
    kcm: number;
    scheduler: number;
    proxyHealthz: number;
    proxyMetrics: number;
  };
  processes: Partial<Record<Component, LocalProcess>>;
  baseline: HostBaseline;
  /** Bridge, our chains and the Service route are in place. */
  network: boolean;
  /** The kubelet root is a shared bind mount. */
  kubeletRootMounted: boolean;
  images: string[];
  secondNode?: SecondNodeState;
}

export async function writeLocalState(path: string, s: LocalState): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(s, null, 2) + '\n');
  await rename(tmp, path);
}

export async function readLocalState(path: string): Promise<LocalState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  const s = JSON.parse(text) as Partial<LocalState>;
  if (s.version !== 1 || s.processes === undefined || s.baseline === undefined) {
    throw new KvError('KV_ERR_CONFIG', `${path} is not a local cluster state file (version 1)`);
  }
  return s as LocalState;
}
