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

export async function statusOf(s: LocalState): Promise<ClusterStatus> {
  const cps = await controlPlaneStatus(s);
  const processes = processStatuses(s);
  const etcd = { pid: cps?.etcd.pid ?? 0, running: cps?.etcd.running ?? false };
  const apiserver = cps?.apiserver ?? { pid: 0, running: false, ready: false };
  const node = await isNodeReady(s, apiserver.ready);
  const bridge = await bridgeExists();
  const allRunning = Object.values(processes).every((p) => p.running) && etcd.running;
  return {
    ready: allRunning && apiserver.ready && node && bridge,
    etcd,
    kubeApiServer: apiserver,
    processes,
    nodeReady: node,
    bridge,
  };
}
