/** The host PID of a Pod container's task, asked of our containerd with ctr (ID `containerd://<id>`). */
import { dirname, join } from 'node:path';
import { KvError } from '../../../lib/kernel/errors/errors.ts';
import { run } from '../exec.ts';
import { layout } from '../layout.ts';
import { readLocalState } from '../state.ts';

export async function containerTaskPid(dir: string, containerId: string): Promise<number> {
  const L = layout(dir);
  const s = await readLocalState(L.state);
  const bin = s?.processes.containerd?.bin;
  if (bin === undefined) throw new KvError('KV_ERR_CONFIG', `no containerd in ${L.state}`);
  const id = containerId.replace(/^containerd:\/\//, '');
  const out = await run(join(dirname(bin), 'ctr'), [
    '--address',
    L.containerd.socket,
    '--namespace',
    'k8s.io',
    'tasks',
    'ls',
  ]);
  const line = out.split('\n').find((l) => l.startsWith(`${id} `));
  const pid = Number(line?.trim().split(/\s+/)[1]);
  if (!Number.isInteger(pid) || pid <= 0) throw new KvError('KV_ERR_CONFIG', `no task for container ${id}`);
  return pid;
}
