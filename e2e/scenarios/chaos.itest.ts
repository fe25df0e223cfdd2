/**
 * Chaos: five VMs (runStrategy Always) run while the installed roles and the node are hurt in turn: kill -9 of
 * the leading controller's, an api's, its rewriter sidecar's, the handler's and the operator's process (the kubelet
 * restarts the container), the deletion of an api Pod, the handler Pod and the operator Pod (their Deployment or
 * DaemonSet makes a new one), kill -9 of one launcher (not restarted: runStrategy Always must start its VMI again),
 * of the kubelet and of containerd (started again as systemd would). After each fault every VM converges to Running
 * with exactly one VMI and one launcher Pod; only the killed launcher's VMI has a new uid; while the handler is
 * hurt no QEMU process stops; at the end the api answers through kube-apiserver, the KubeVirt resource is
 * Available and every role container is ready.
 */
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { killNodeProcess, killRoleContainer } from '../local/chaos.ts';
import { status } from '../local/cluster.ts';
import { pidsWhere } from '../local/testing/procs.ts';
import { kubevirtAvailable, VIRT_NAMESPACE } from '../local/virt-install.ts';
import { rolePods } from '../local/virt-pods.ts';
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

/** The controller Pod holding the leader Lease (its identity starts with the Pod's host name, the Pod's name). */
async function leader(): Promise<string> {
  const lease = await s.clients.direct.get<{ metadata: object; spec?: { holderIdentity?: string } }>(
    LEASES,
    'virt-controller',
    { namespace: VIRT_NAMESPACE },
  );
  const id = lease.spec?.holderIdentity ?? '';
  const pod = (await rolePods(s.clients)).find((p) => id.startsWith(`${p.metadata.name ?? ''}_`));
  if (pod === undefined) throw new Error(`no controller Pod holds the lease (holder ${id})`);
  return pod.metadata.name ?? '';
}

/** The first installed Pod whose name starts with `prefix`. */
async function podOf(prefix: string): Promise<string> {
  const pod = (await rolePods(s.clients)).find(
    (p) => p.metadata.deletionTimestamp === undefined && (p.metadata.name ?? '').startsWith(prefix),
  );
  if (pod === undefined) throw new Error(`no ${prefix} Pod`);
  return pod.metadata.name ?? '';
}

const deletePod = async (prefix: string): Promise<void> => {
  await s.clients.direct.delete(PODS, await podOf(prefix), { namespace: VIRT_NAMESPACE });
};

/**
 * The QEMU processes of this file's VMs (libvirt names a domain `<namespace>_<name>`): a VM of another
 * namespace the cluster starts meanwhile (./dev run's example VM, waiting for the tun device) is not one the
 * handler's restart touched.
 */
const qemuPids = (): number[] =>
  pidsWhere(
    (argv) => argv.some((a) => a.includes('qemu-system-')) && argv.some((a) => a.includes(`guest=${s.ns}_`)),
  ).sort();

/** The installed Pods there should be, by name prefix: two api, two controllers, the handler, the operator. */
const ROLE_PODS: Readonly<Record<string, number>> = {
  'virt-api-': 2,
  'virt-controller-': 2,
  'virt-handler-': 1,
  'virt-operator-': 1,
};

/** Every role Pod there and ready (none terminating), and the KubeVirt resource Available. */
async function installWhole(): Promise<boolean> {
  const pods = (await rolePods(s.clients)).filter((p) => p.metadata.deletionTimestamp === undefined);
  const ready = pods.filter((p) => {
    const containers = p.status?.containerStatuses ?? [];
    return containers.length > 0 && containers.every((c) => c.ready);
  });
  const counted = Object.entries(ROLE_PODS).every(
    ([prefix, n]) => ready.filter((p) => (p.metadata.name ?? '').startsWith(prefix)).length === n,
  );
  return counted && pods.length === ready.length && (await kubevirtAvailable(s.clients));
}

/** Before the next fault, what the last one hurt is back, as its supervisor brings it back. */
const whole = (after: string): Promise<boolean> =>
  waitFor(installWhole, `every role Pod ready and the KubeVirt resource Available after ${after}`, {
    timeoutMs: 300_000,
    intervalMs: 1000,
  });

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
    const kill = async (prefix: string, container: string): Promise<unknown> =>
      killRoleContainer(s.clients, await podOf(prefix), container);
    const faults: [string, () => Promise<unknown>][] = [
      [
        'kill -9 of the leading controller',
        async () => killRoleContainer(s.clients, await leader(), 'virt-controller'),
      ],
      ['kill -9 of an api', () => kill('virt-api-', 'virt-api')],
      ["kill -9 of an api's rewriter sidecar", () => kill('virt-api-', 'proxy')],
      ['deletion of an api Pod', () => deletePod('virt-api-')],
      ['kill -9 of the handler', () => kill('virt-handler-', 'virt-handler')],
      ['deletion of the handler Pod', () => deletePod('virt-handler-')],
      ['kill -9 of the operator', () => kill('virt-operator-', 'virt-operator')],
      ['deletion of the operator Pod', () => deletePod('virt-operator-')],
      [`kill -9 of the launcher of ${victim}`, () => killLauncher(uids.get(victim) ?? '')],
      ['kill -9 of the kubelet', () => killNodeProcess('kubelet', s.c.dir)],
      ['kill -9 of containerd', () => killNodeProcess('containerd', s.c.dir)],
    ];
    for (const [what, fault] of faults) {
      const qemu = qemuPids();
      await fault();
      if (what.includes('handler')) expect([what, qemuPids()]).toEqual([what, qemu]);
      const killedLauncher = what.includes('the launcher');
      // runStrategy Always starts the VM whose launcher died again, with a new VMI; the others keep theirs.
      const after = await waitFor(
        async () => {
          const m = await converged(what);
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
      await whole(what);
    }
    await waitFor(apiAnswers, 'the api answering through kube-apiserver', { timeoutMs: 60_000 });
    // The node processes serve again too: a VM that keeps running says nothing of a kubelet that died.
    expect((await status(s.c.dir))?.ready).toBe(true);
  }, 1_800_000);
});
