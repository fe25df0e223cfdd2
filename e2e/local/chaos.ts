/**
 * Faults for the chaos scenario: kill -9 of one process of the local stack. Node processes (the kubelet,
 * containerd) are started again from the stack's state, as systemd would; an installed role's container is
 * restarted by the kubelet. The PID is checked against /proc before it is signalled.
 */
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { isRunning } from '../../lib/kernel/process/proc.ts';
import { stopProcess } from '../../lib/kernel/process/stop.ts';
import { readFileSync } from 'node:fs';
import { PODS } from '../../lib/kernel/kube/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { pidsWhere } from './testing/procs.ts';
import { VIRT_NAMESPACE } from './virt-install.ts';
import type { VirtClients } from './virt.ts';
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

/**
 * kill -9 of the role process of one installed container (its `virt.mjs <role>` process in the container's
 * cgroup, found through /proc), the kubelet restarting it as it would after a crash; resolves with the killed PID.
 */
export async function killRoleContainer(c: VirtClients, pod: string, container: string): Promise<number> {
  const p = await c.direct.get<Pod>(PODS, pod, { namespace: VIRT_NAMESPACE });
  const status = p.status?.containerStatuses?.find((x) => x.name === container);
  const id = status?.containerID?.replace(/^\w+:\/\//, '');
  if (id === undefined || id === '')
    throw new KvError('KV_ERR_CONFIG', `${pod}/${container} runs no container`);
  const [pid] = pidsWhere(isRole).filter((candidate) => inCgroupOf(candidate, id));
  if (pid === undefined) throw new KvError('KV_ERR_CONFIG', `no role process in ${pod}/${container}`);
  await stopProcess(pid, isRole, { signal: 'SIGKILL' });
  return pid;
}

const isRole = (argv: readonly string[]): boolean => argv.some((a) => a.endsWith('/virt.mjs'));

function inCgroupOf(pid: number, containerId: string): boolean {
  try {
    return readFileSync(`/proc/${String(pid)}/cgroup`, 'utf8').includes(containerId);
  } catch {
    return false;
  }
}
