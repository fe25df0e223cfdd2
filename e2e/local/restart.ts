/**
 * Restarting one node process of a running local cluster with the same command line (tests: a kubelet
 * restart must leave running Pods alone). The PID is checked against /proc before it is signalled.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { Api } from './kube.ts';
import { layout } from './layout.ts';
import { healthz } from './probes.ts';
import { startLocal, stopLocal, waitHealthy } from './procs.ts';
import { readLocalState, writeLocalState } from './state.ts';
import { nodeReady } from './up-node.ts';

/** Stops the kubelet (SIGTERM), starts it again, waits for healthz and node Ready; returns the new PID. */
export async function restartKubelet(dir?: string, timeoutMs = 120_000): Promise<number> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  const p = s?.processes.kubelet;
  if (s === undefined || p === undefined) throw new KvError('KV_ERR_CONFIG', `no kubelet in ${L.state}`);
  await stopLocal(p);
  await writeLocalState(L.state, s);
  const t = realClock.now();
  const since = Date.now();
  await startLocal(p);
  await writeLocalState(L.state, s);
  await waitHealthy(
    'kubelet',
    p,
    () => healthz(`http://127.0.0.1:${s.ports.kubeletHealthz}/healthz`),
    timeoutMs,
  );
  const api = await Api.fromKubeconfig(s.kubeconfig);
  await waitHealthy('node local Ready', p, () => nodeReady(api, since), timeoutMs - (realClock.now() - t));
  return p.pid;
}
