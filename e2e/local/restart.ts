/**
 * Restarting one node process of a running local cluster with the same command line (tests: a kubelet
 * restart must leave running Pods alone; chaos: what systemd would do after a kill -9). The PID is checked
 * against /proc before it is signalled.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { Api } from './kube.ts';
import { layout, type Layout } from './layout.ts';
import { containerdUp, healthz } from './probes.ts';
import { startLocal, stopLocal, waitHealthy } from './procs.ts';
import { readLocalState, writeLocalState, type LocalState } from './state.ts';
import { nodeReady } from './up-node.ts';

/** Stops the kubelet (SIGTERM), starts it again, waits for healthz and node Ready; returns the new PID. */
export async function restartKubelet(dir?: string, timeoutMs = 120_000): Promise<number> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  const p = s?.processes.kubelet;
  if (s === undefined || p === undefined) throw new KvError('KV_ERR_CONFIG', `no kubelet in ${L.state}`);
  await stopLocal(p);
  await writeLocalState(L.state, s);
  await startNodeProcess('kubelet', s, L, timeoutMs);
  return p.pid;
}

/**
 * Starts a stopped kubelet or containerd of the stack again with its command line and waits until it serves: the
 * kubelet's healthz and the Node Ready since this start, or containerd's CRI.
 */
export async function startNodeProcess(
  component: 'kubelet' | 'containerd',
  s: LocalState,
  L: Layout,
  timeoutMs: number,
): Promise<void> {
  const p = s.processes[component];
  if (p === undefined) throw new KvError('KV_ERR_CONFIG', `no ${component} in ${L.state}`);
  const t = realClock.now();
  const since = Date.now();
  await startLocal(p);
  await writeLocalState(L.state, s);
  if (component === 'containerd') {
    await waitHealthy('containerd', p, () => containerdUp(L.containerd.socket), timeoutMs);
    return;
  }
  await waitHealthy(
    'kubelet',
    p,
    () => healthz(`http://127.0.0.1:${s.ports.kubeletHealthz}/healthz`),
    timeoutMs,
  );
  const api = await Api.fromKubeconfig(s.kubeconfig);
  await waitHealthy('node local Ready', p, () => nodeReady(api, since), timeoutMs - (realClock.now() - t));
}
