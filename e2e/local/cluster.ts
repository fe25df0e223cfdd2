/**
 * The local cluster's API: a real single-node Kubernetes on this machine (etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler, containerd 2, the kubelet of node `local`, kube-proxy), with
 * nothing leaving the machine and nothing left behind by `down`. State lives in `<dir>/state.json`
 * (default dir `${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/local`), so any process can ask or stop it.
 */
import type { Logger } from '../../lib/kernel/log/log.ts';
import { Api } from './kube.ts';
import { layout } from './layout.ts';
import { removeSecondNode as removeNode } from './second-node-down.ts';
import { readLocalState, writeLocalState } from './state.ts';
import { statusOf, type ClusterStatus } from './status.ts';

export { up } from './up.ts';
export { down } from './down.ts';
export type { ClusterStatus } from './status.ts';
export { defaultStackDir } from './layout.ts';

/** What runs of the stack in dir; undefined when it was never brought up there. */
export async function status(dir?: string): Promise<ClusterStatus | undefined> {
  const s = await readLocalState(layout(dir).state);
  return s === undefined ? undefined : statusOf(s);
}

/** The admin kubeconfig's path; undefined when the stack was never brought up there. */
export async function kubeconfig(dir?: string): Promise<string | undefined> {
  return (await readLocalState(layout(dir).state))?.kubeconfig;
}
export { restartKubelet } from './restart.ts';

/** Takes the second node away (`up --nodes 2`), leaving node `local` and the rest running; what it removed. */
export async function removeSecondNode(dir: string | undefined, log: Logger): Promise<string[]> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  if (s === undefined) return [];
  const api = await Api.fromKubeconfig(s.kubeconfig).catch(() => undefined);
  const ctr =
    s.processes.containerd === undefined ? 'ctr' : `${s.processes.containerd.bin.replace(/[^/]*$/, '')}ctr`;
  const removed = await removeNode(s, api, log, ctr);
  await writeLocalState(L.state, s);
  return removed;
}
