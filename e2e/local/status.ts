/**
 * `status`: what of the local cluster runs (each process by PID, checked against /proc), whether the API
 * server answers, whether node `local` is Ready, and whether our bridge is there.
 */
import { attachControlPlane } from '../../testenv/controlplane.ts';
import type { ControlPlaneStatus } from '../../testenv/local-control-plane.ts';
import { nopLogger } from '../../lib/kernel/log/log.ts';
import { bridgeExists } from './host.ts';
import { Api } from './kube.ts';
import { running } from './procs.ts';
import { COMPONENTS, type LocalState } from './state.ts';
import { nodeReady } from './up-node.ts';
import { SECOND_NODE } from './layout.ts';

interface ProcessStatus {
  pid: number;
  running: boolean;
}

export interface ClusterStatus {
  /** Every process runs, the API server is ready and the node is Ready. */
  ready: boolean;
  etcd: ProcessStatus;
  kubeApiServer: ProcessStatus & { ready: boolean };
  processes: Record<string, ProcessStatus>;
  nodeReady: boolean;
  bridge: boolean;
  /** When the stack has a second node: its processes and whether node local-2 is Ready. */
  secondNode?: { processes: Record<string, ProcessStatus>; ready: boolean };
}

function processStatuses(s: LocalState): Record<string, ProcessStatus> {
  const out: Record<string, ProcessStatus> = {};
  for (const name of COMPONENTS) {
    const p = s.processes[name];
    out[name] = { pid: p?.pid ?? 0, running: running(p) };
  }
  return out;
}

async function controlPlaneStatus(s: LocalState): Promise<ControlPlaneStatus | undefined> {
  const cp = await attachControlPlane(s.controlPlaneState, nopLogger).catch(() => undefined);
  return cp?.status().catch(() => undefined);
}

async function isNodeReady(s: LocalState, apiReady: boolean): Promise<boolean> {
  if (!apiReady) return false;
  const api = await Api.fromKubeconfig(s.kubeconfig).catch(() => undefined);
  return api === undefined ? false : nodeReady(api).catch(() => false);
}

async function secondNodeStatus(s: LocalState, apiReady: boolean): Promise<ClusterStatus['secondNode']> {
  const st = s.secondNode;
  if (st?.namespaces !== true) return undefined;
  const processes: Record<string, ProcessStatus> = {};
  for (const [name, p] of Object.entries(st.processes)) processes[name] = { pid: p.pid, running: running(p) };
  const api = apiReady ? await Api.fromKubeconfig(s.kubeconfig).catch(() => undefined) : undefined;
  const node =
    api === undefined ? false : await nodeReady(api, undefined, SECOND_NODE.name).catch(() => false);
  return { processes, ready: node && Object.values(processes).every((p) => p.running) };
}

async function controlPlaneProcesses(s: LocalState): Promise<Pick<ClusterStatus, 'etcd' | 'kubeApiServer'>> {
  const cps = await controlPlaneStatus(s);
  return {
    etcd: { pid: cps?.etcd.pid ?? 0, running: cps?.etcd.running ?? false },
    kubeApiServer: cps?.apiserver ?? { pid: 0, running: false, ready: false },
  };
}

export async function statusOf(s: LocalState): Promise<ClusterStatus> {
  const { etcd, kubeApiServer: apiserver } = await controlPlaneProcesses(s);
  const processes = processStatuses(s);
  const node = await isNodeReady(s, apiserver.ready);
  const bridge = await bridgeExists();
  const allRunning = Object.values(processes).every((p) => p.running) && etcd.running;
  const secondNode = await secondNodeStatus(s, apiserver.ready);
  const firstNode = allRunning && apiserver.ready && node && bridge;
  return {
    ready: firstNode && secondNode?.ready !== false,
    etcd,
    kubeApiServer: apiserver,
    processes,
    nodeReady: node,
    bridge,
    ...(secondNode !== undefined && { secondNode }),
  };
}
