/**
 * Chaos: five VMs (runStrategy Always) run while each process of the stack is killed -9 in turn and started again
 * as its supervisor would — the controller that holds the leader Lease, the api, the handler, the rewriter, one
 * launcher (not restarted: runStrategy Always must start its VMI again), the kubelet, containerd. After each fault
 * every VM converges to Running with exactly one VMI and one launcher Pod; only the killed launcher's VMI has a
 * new uid; the api answers through kube-apiserver again.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { killHostRole, killNodeProcess } from '../local/chaos.ts';
import { status } from '../local/cluster.ts';
import { readHostRoles, VIRT_NAMESPACE } from '../local/host-roles.ts';
import { layout } from '../local/layout.ts';
import { pidsWhere } from '../local/testing/procs.ts';
import { gvr } from '../local/virt-registration.ts';
import { exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';

const s = scenario('e2e-chaos');
const names = Array.from({ length: 5 }, (_, i) => `chaos-${i}`);
const LEASES = gvr('coordination.k8s.io/v1', 'leases', 'Lease', true);

/** The VMI uid of each VM once every VM has exactly one VMI Running and one launcher Pod. */
async function converged(what: string): Promise<Map<string, string>> {
  return waitFor(
    async () => {
      const vmis = await s.clients.kv.list<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
        namespace: s.ns,
      });
      const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns });
      const live = pods.items.filter(
        (p) => p.metadata.deletionTimestamp === undefined && p.status?.phase !== 'Failed',
      );
      const uids = new Map<string, string>();
      for (const n of names) {
        const vmi = vmis.items.filter((v) => v.metadata.name === n);
        const launchers = live.filter((p) => p.metadata.labels?.['vm.kubevirt.io/name'] === n);
        if (vmi.length !== 1 || vmi[0]?.status?.phase !== 'Running' || launchers.length !== 1) return false;
        uids.set(n, vmi[0].metadata.uid ?? '');
      }
      return vmis.items.length === names.length && uids;
    },
    `every VM Running with one VMI and one launcher Pod after ${what}`,
    { timeoutMs: 300_000, intervalMs: 1000 },
  );
}

/** The host role (controller or controller-2) whose process holds the leader Lease. */
async function leader(): Promise<'controller' | 'controller-2'> {
  const lease = await s.clients.direct.get<{ metadata: object; spec?: { holderIdentity?: string } }>(
    LEASES,
    'virt-controller',
    { namespace: VIRT_NAMESPACE },
  );
  const id = lease.spec?.holderIdentity ?? '';
  for (const name of ['controller', 'controller-2'] as const) {
    const log = await readFile(`${layout(s.c.dir).logs}/${name}.log`, 'utf8');
    if (log.includes(`"msg":"acquired leader lease"`) && log.includes(`"identity":"${id}"`)) return name;
  }
  throw new Error(`no controller log names the leader ${id}`);
}

function killLauncher(vmiUid: string): Promise<void> {
  const [pid] = pidsWhere(
    (argv) => argv.some((a) => a.includes(vmiUid)) && argv.some((a) => a.includes('virt.mjs')),
  );
  if (pid === undefined) return Promise.reject(new Error(`no launcher process for VMI ${vmiUid}`));
  process.kill(pid, 'SIGKILL');
  return Promise.resolve();
}

const apiAnswers = (): Promise<boolean> =>
  s.clients.direct.request({ method: 'GET', path: '/apis/subresources.kubevirt.io/v1/version' }).then(
    () => true,
    () => false,
  );

describe('chaos', () => {
  it('every VM converges after kill -9 of each process of the stack in turn', async () => {
    for (const n of names) await s.clients.kv.create(VIRTUAL_MACHINES, await exampleVm(s.ns, n));
    let uids = await converged('the start');
    const victim = names[2] ?? '';
    const faults: [string, () => Promise<unknown>][] = [
      ['the leading controller', async () => killHostRole(await leader(), s.c.kubeconfig, s.c.dir)],
      ['the api', () => killHostRole('api', s.c.kubeconfig, s.c.dir)],
      ['the handler', () => killHostRole('handler', s.c.kubeconfig, s.c.dir)],
      ['the rewriter', () => killHostRole('rewriter', s.c.kubeconfig, s.c.dir)],
      [`the launcher of ${victim}`, () => killLauncher(uids.get(victim) ?? '')],
      ['the kubelet', () => killNodeProcess('kubelet', s.c.dir)],
      ['containerd', () => killNodeProcess('containerd', s.c.dir)],
    ];
    for (const [what, fault] of faults) {
      await fault();
      const killedLauncher = what.startsWith('the launcher');
      // runStrategy Always starts the VM whose launcher died again, with a new VMI; the others keep theirs.
      const after = await waitFor(
        async () => {
          const m = await converged(`kill -9 of ${what}`);
          return (!killedLauncher || m.get(victim) !== uids.get(victim)) && m;
        },
        `every VM converged after kill -9 of ${what}`,
        { timeoutMs: 300_000, intervalMs: 1000 },
      );
      for (const n of names) {
        if (killedLauncher && n === victim) continue;
        expect([what, n, after.get(n)]).toEqual([what, n, uids.get(n)]);
      }
      uids = after;
    }
    await waitFor(apiAnswers, 'the api answering through kube-apiserver', { timeoutMs: 60_000 });
    // The node processes serve again too: a VM that keeps running says nothing of a kubelet that died.
    expect((await status(s.c.dir))?.ready).toBe(true);
    expect((await readHostRoles(s.c.dir)).map((r) => r.name).sort()).toEqual([
      'api',
      'controller',
      'controller-2',
      'handler',
      'rewriter',
    ]);
  }, 1_800_000);
});
