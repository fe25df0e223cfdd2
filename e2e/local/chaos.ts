/**
 * Faults for the chaos scenario: kill -9 of one process of the local stack, then what its supervisor would do
 * (a Deployment, the DaemonSet, systemd): start it again with the same command line. Node processes (the
 * kubelet, containerd) are restarted from the stack's state; the virtualization roles by startHostRoles, which
 * starts whichever is not running. The PID is checked against /proc before it is signalled.
 */
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { isRunning } from '../../lib/kernel/process/proc.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { readHostRoles, roleRunning, startHostRoles, type HostRole } from './host-roles.ts';
import { layout } from './layout.ts';
import { startNodeProcess } from './restart.ts';
import { readLocalState } from './state.ts';

async function killed(pid: number, bin: string, what: string): Promise<void> {
  if (!isRunning(pid, bin)) throw new KvError('KV_ERR_CONFIG', `${what} (pid ${pid}) is not running`);
  await stopProcess(pid, bin, { signal: 'SIGKILL' });
}

/**
 * kill -9 of the kubelet or containerd, started again at once; resolves with its new PID once it serves, so the
 * next fault does not meet a node process still starting (a kubelet that finds CRI not initialized exits).
 */
export async function killNodeProcess(
  component: 'kubelet' | 'containerd',
  dir?: string,
  timeoutMs = 120_000,
): Promise<number> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  const p = s?.processes[component];
  if (s === undefined || p === undefined) throw new KvError('KV_ERR_CONFIG', `no ${component} in ${L.state}`);
  await killed(p.pid, p.bin, component);
  await startNodeProcess(component, s, L, timeoutMs);
  return p.pid;
}

/** kill -9 of a host role, then every role that is not running started again. */
export async function killHostRole(
  name: HostRole['name'],
  kubeconfig: string,
  dir?: string,
): Promise<number> {
  const role = (await readHostRoles(dir)).find((r) => r.name === name);
  if (role === undefined || !roleRunning(role))
    throw new KvError('KV_ERR_CONFIG', `host role ${name} is not running`);
  await killed(role.pid, process.execPath, name);
  const started = await startHostRoles(kubeconfig, dir);
  return started.find((r) => r.name === name)?.pid ?? 0;
}
