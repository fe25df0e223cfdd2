/**
 * The fixture of the end-to-end scenarios: the local cluster (brought up when it is not) with the
 * virtualization roles installed as `./dev run` installs them (e2e/local/virt-install.ts: the operator and its
 * KubeVirt resource, which install the api behind kube-apiserver with its webhooks, two controllers and the
 * handler), a fresh namespace, and what a scenario asks of it: its VMs, their Pods, and whether anything of a VM is
 * left on the node. The install stays for the next scenario. Registers its own beforeAll/afterAll; read the fields
 * inside tests.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll } from '@jest/globals';
import { VIRTUAL_MACHINE_INSTANCES, type VirtualMachineInstance } from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { readMountPoints } from '../../lib/kernel/host/mounts.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { newNamespaceName } from '../../testenv/handle.ts';
import { useLocalCluster, type TestCluster } from '../local/testing/cluster.ts';
import { ensureNamespace } from '../local/virt-install.ts';
import { rbacDenials, reportRolePods } from '../local/virt-pods.ts';
import { deleteNamespace, kubeletPodsDir, virtClients, type VirtClients } from '../local/virt.ts';

export interface Scenario {
  readonly c: TestCluster;
  readonly clients: VirtClients;
  readonly ns: string;
  vmi(name: string): Promise<VirtualMachineInstance | undefined>;
  /** Resolves with the VMI once it is Running (rejects after timeoutMs). */
  running(name: string, timeoutMs?: number): Promise<VirtualMachineInstance>;
  /** The launcher Pod of a VMI (by its uid), if any. */
  launcherPod(vmiUid: string): Promise<Pod | undefined>;
  /** What is left on the node of a VM whose launcher Pod had this uid and whose domain this name. */
  leftovers(podUid: string, vmiName: string): Promise<string[]>;
}

/** The QEMU domain name of a VMI (`<namespace>_<name>`), as its process's command line shows it. */
const domainName = (ns: string, name: string): string => `${ns}_${name}`;

async function qemuCommandLines(): Promise<string[]> {
  const out: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes('qemu-system-')) out.push(cmd.replaceAll('\0', ' '));
  }
  return out;
}

export function scenario(prefix: string, o: { nodes?: 1 | 2 } = {}): Scenario {
  let c: TestCluster | undefined;
  let clients: VirtClients | undefined;
  const ns = newNamespaceName(prefix);
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error(`the ${prefix} scenario is not set up`);
    return v;
  };
  const vmi = (name: string): Promise<VirtualMachineInstance | undefined> =>
    ready(clients)
      .kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: ns })
      .catch(() => undefined);
  const s: Scenario = {
    get c() {
      return ready(c);
    },
    get clients() {
      return ready(clients);
    },
    ns,
    vmi,
    running: (name, timeoutMs = 300_000) =>
      waitFor(
        async () => {
          const v = await vmi(name);
          return v?.status?.phase === 'Running' && v;
        },
        `VMI ${ns}/${name} Running`,
        { timeoutMs, intervalMs: 500 },
      ),
    launcherPod: async (vmiUid) =>
      (
        await ready(clients).kv.list<Pod>(PODS, {
          namespace: ns,
          labelSelector: `kubevirt.io/created-by=${vmiUid}`,
        })
      ).items[0],
    leftovers: async (podUid, vmiName) => {
      const left: string[] = [];
      const podDir = `${kubeletPodsDir(ready(c).dir)}/${podUid}`;
      if (
        await readdir(podDir).then(
          () => true,
          () => false,
        )
      )
        left.push(`pod dir ${podDir}`);
      for (const m of await readMountPoints()) if (m.includes(podUid)) left.push(`mount ${m}`);
      for (const cmd of await qemuCommandLines())
        if (cmd.includes(`guest=${domainName(ns, vmiName)},`)) left.push(`process ${cmd.slice(0, 120)}`);
      return left;
    },
  };
  beforeAll(async () => {
    c = await useLocalCluster({ virt: 'installed', ...(o.nodes === 2 && { nodes: 2 as const }) });
    clients = virtClients(c.kubeconfig, `kubevirt-ts/e2e-${prefix}`);
    await ensureNamespace(clients, ns);
  }, 1_200_000);
  afterAll(async () => {
    if (clients !== undefined) {
      await deleteNamespace(clients, ns);
      await reportRolePods(clients);
      const denials = await rbacDenials(clients);
      await clients.close();
      if (denials.length > 0) throw new Error(`roles were refused by RBAC:\n${denials.join('\n')}`);
    }
    await c?.release();
  }, 300_000);
  return s;
}
