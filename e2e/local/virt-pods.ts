/**
 * The installed roles' Pods as a test reads them: a container that restarted or is not ready under a scenario is
 * a failure to explain, so its restarts and the last lines of its log (the previous instance's when it restarted)
 * go to stderr.
 */
import { readFileSync } from 'node:fs';
import { PODS } from '../../lib/kernel/kube/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { pidsWhere } from './testing/procs.ts';
import { VIRT_NAMESPACE } from './virt-install.ts';
import type { VirtClients } from './virt.ts';

/** The last lines of one container's log (its previous instance's with `previous`). */
async function containerLog(
  c: VirtClients,
  pod: string,
  container: string,
  o: { lines?: number; previous?: boolean } = {},
): Promise<string> {
  return c.direct
    .request<string>({
      method: 'GET',
      path: `/api/v1/namespaces/${VIRT_NAMESPACE}/pods/${pod}/log`,
      query: { container, tailLines: o.lines ?? 20, previous: o.previous ?? false },
    })
    .catch((err: unknown) => `(no log: ${String(err)})`);
}

/** kube-apiserver's RBAC refusal of one of the install's ServiceAccounts, as a role logs the error it got. */
const RBAC_DENIAL = /is forbidden: User \\?"system:serviceaccount:d8-virtualization:/;

/**
 * The lines in which a role logged an RBAC refusal of its own ServiceAccount (every container of every role Pod,
 * its previous instance's log too): an install whose RBAC misses what a role does shows here.
 */
export async function rbacDenials(c: VirtClients): Promise<string[]> {
  const found: string[] = [];
  for (const pod of await rolePods(c)) {
    const name = pod.metadata.name ?? '';
    for (const st of pod.status?.containerStatuses ?? []) {
      const text = await containerLog(c, name, st.name, { lines: 100_000 });
      const before =
        (st.restartCount ?? 0) > 0
          ? await containerLog(c, name, st.name, { lines: 100_000, previous: true })
          : '';
      const lines = `${before}\n${text}`.split('\n').filter((line) => RBAC_DENIAL.test(line));
      found.push(...lines.map((line) => `${name}/${st.name}: ${line.slice(0, 400)}`));
    }
  }
  return found;
}

export async function rolePods(c: VirtClients): Promise<Pod[]> {
  return (await c.direct.list<Pod>(PODS, { namespace: VIRT_NAMESPACE })).items;
}

export async function reportRolePods(c: VirtClients): Promise<void> {
  for (const pod of await rolePods(c)) {
    for (const st of pod.status?.containerStatuses ?? []) {
      const restarts = st.restartCount ?? 0;
      if (restarts === 0 && st.ready) continue;
      const name = pod.metadata.name ?? '';
      const log = await containerLog(c, name, st.name, { previous: restarts > 0 });
      process.stderr.write(
        `role container ${name}/${st.name}: ${String(restarts)} restarts, ready ${String(st.ready)}; ` +
          `the end of its ${restarts > 0 ? 'previous ' : ''}log:\n${log}\n`,
      );
    }
  }
}

const ROLES = new Set(['operator', 'api', 'controller', 'handler', 'rewriter', 'pr-helper']);

/** The installed roles' processes on this node (`virt.mjs <role>`, launchers left out), named `<role> <pid>`. */
export function roleProcesses(): { name: string; pid: number }[] {
  return pidsWhere((argv) => {
    const at = argv.findIndex((a) => a.endsWith('/virt.mjs'));
    return at >= 0 && ROLES.has(argv[at + 1] ?? '');
  }).map((pid) => {
    const argv = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
    const role = argv[argv.findIndex((a) => a.endsWith('/virt.mjs')) + 1] ?? '?';
    return { name: `${role} ${String(pid)}`, pid };
  });
}
