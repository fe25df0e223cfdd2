/**
 * `./dev run [up|status|down]`, the README's run command: the local single-node Kubernetes with the
 * virtualization roles that are built, and the example VM.
 * - up (default): the cluster (e2e/local, idempotent), then the roles installed through the operator as Deckhouse
 *   installs them (virt-install.ts: the CRDs, the operator's RBAC and Deployment, one KubeVirt resource; the
 *   operator installs the api, two controllers and the handler DaemonSet, and the resource becomes Available),
 *   then the example VM (manifests/examples/vm-tiny.yaml, namespace default), with progress until it is Running,
 *   and the last lines of its serial console; prints what runs and the KUBECONFIG line. The cluster stays up.
 * - status: the cluster, the KubeVirt resource's phase and conditions and each component's Pods (exit 3 when
 *   something is not up); down: everything stopped, the host as it was.
 */
import { Command } from 'commander';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type KubeVirt,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { errorMessage, isAlreadyExists } from '../../lib/kernel/errors/errors.ts';
import { loadRestConfig, PODS } from '../../lib/kernel/kube/index.ts';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { readConsoleThroughApi } from './api-console.ts';
import { defaultStackDir, down, kubeconfig, status, up } from './cluster.ts';
import { describeKubeVirt, installVirt, localKubeVirt, VIRT_NAMESPACE } from './virt-install.ts';
import { rolePods } from './virt-pods.ts';
import { shippedExampleVm, virtClients, type VirtClients } from './virt.ts';

/** What the example guest prints on its serial console once it is up (testenv/guests). */
const GUEST_MARKER = 'KUBEVIRT-TS-GUEST-READY';

const NS = 'default';
const log = createLogger({ component: 'dev-run' });
const say = (line: string): void => {
  console.log(line);
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function waitRunning(c: VirtClients, name: string): Promise<{ pod: Pod; vmi: VirtualMachineInstance }> {
  let last = '';
  const step = (what: string): void => {
    if (what !== last) say(`  … ${what}`);
    last = what;
  };
  return waitFor(
    async () => {
      const vmi = await c.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: NS });
      const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
      const pod = (await c.kv.list<Pod>(PODS, { namespace: NS, labelSelector: selector })).items[0];
      step(`VMI ${vmi.status?.phase ?? 'Pending'}, launcher Pod ${pod?.status?.phase ?? 'not created yet'}`);
      return pod !== undefined && vmi.status?.phase === 'Running' && { pod, vmi };
    },
    'the example VM to be Running',
    { timeoutMs: 180_000, intervalMs: 250 },
  );
}

async function exampleVmUp(c: VirtClients, kubeconfig: string): Promise<void> {
  await c.kv.create(VIRTUAL_MACHINES, await shippedExampleVm(NS)).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  say(`example VM ${NS}/tiny created; waiting for it to run`);
  const { pod } = await waitRunning(c, 'tiny');
  say(`example VM: Running on node local in Pod ${pod.metadata.name ?? ''}; its serial console says:`);
  const admin = loadRestConfig({ kubeconfig, inCluster: false, userAgent: 'kubevirt-ts/dev-run' });
  const serial = await readConsoleThroughApi(admin, {
    namespace: NS,
    name: 'tiny',
    until: GUEST_MARKER,
    timeoutMs: 60_000,
  });
  // Up to the marker's line (a session replays what came after it too), without terminal escapes.
  const upToMarker = serial.slice(0, serial.indexOf('\n', serial.lastIndexOf(GUEST_MARKER)));
  // eslint-disable-next-line no-control-regex
  const plain = upToMarker.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  const lines = plain.split(/\r?\n/).filter((l) => l.trim() !== '');
  for (const line of lines.slice(-3)) say(`  | ${line}`);
  say('(read through kube-apiserver, the api and the handler). Attach to it with:');
  say(`  KUBECONFIG=${kubeconfig} bin/virtctl-ts console tiny   (Ctrl+] leaves)`);
  const vmi = await c.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'tiny', { namespace: NS });
  const address = vmi.status?.interfaces?.[0]?.ipAddress;
  const guest = /KUBEVIRT-TS-GUEST-NET eth0 (\S+)/.exec(plain)?.[1] ?? 'no lease seen';
  say(
    `example VM address: ${address ?? 'none reported'} (its Pod's; the guest has ${guest} behind the Pod's NAT).`,
  );
  say(`  its TCP echo: KUBECONFIG=${kubeconfig} bin/virtctl-ts port-forward vmi/tiny 1500:1500`);
}

const SUMMARY = [
  'Real here: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd 2, the kubelet and',
  `kube-proxy of node local; in Pods of namespace ${VIRT_NAMESPACE}, all from the project image: the operator,`,
  'which installed from the KubeVirt resource the api (with the rewriter as its webhook proxy sidecar, served',
  'through kube-apiserver as subresources.kubevirt.io), two controllers (one leader) and the handler DaemonSet',
  '(node-labeller init container, device plugins, REST server); the launcher in its Pod with its own libvirt',
  'and QEMU (TCG). pr-helper runs only with the PersistentReservation gate (off here).',
];

async function upCmd(o: { dir: string }): Promise<void> {
  const t0 = Date.now();
  say(
    'local cluster: bringing it up (the first run builds the Kubernetes binaries, containerd and the image)',
  );
  const cluster = await up({ dir: o.dir, log });
  const state = cluster.alreadyUp ? 'already up, images current' : 'up';
  say(`local cluster: ${state} (${seconds(Date.now() - t0)})`);
  const c = virtClients(cluster.kubeconfig, 'kubevirt-ts/dev-run');
  try {
    const t1 = Date.now();
    say(`operator: installing in ${VIRT_NAMESPACE}, then the KubeVirt resource it installs from`);
    await installVirt(c, {
      dir: o.dir,
      progress: (line) => {
        say(`  … ${line}`);
      },
    });
    say(`KubeVirt resource Available (${seconds(Date.now() - t1)})`);
    for (const p of await rolePods(c)) say(`  pod ${p.metadata.name ?? ''}: ${p.status?.phase ?? 'Pending'}`);
    await exampleVmUp(c, cluster.kubeconfig);
  } finally {
    await c.close();
  }
  say('');
  for (const line of SUMMARY) say(line);
  say(`done in ${seconds(Date.now() - t0)}; \`./dev run status\` and \`./dev run down\`.`);
  say(`export KUBECONFIG=${cluster.kubeconfig}`);
}

const kubevirtAvailableIn = (kv: KubeVirt | undefined): boolean =>
  kv?.status?.conditions?.some((x) => x.type === 'Available' && x.status === 'True') === true;

function podState(p: Pod): { name: string; ready: boolean; restarts: number } {
  const containers = p.status?.containerStatuses ?? [];
  return {
    name: p.metadata.name ?? '',
    ready: containers.length > 0 && containers.every((x) => x.ready),
    restarts: containers.reduce((n, x) => n + (x.restartCount ?? 0), 0),
  };
}

/** The KubeVirt resource and each installed Pod; false when something is not up. */
async function virtStatus(kubeconfig: string): Promise<boolean> {
  const c = virtClients(kubeconfig, 'kubevirt-ts/dev-run');
  try {
    const name = localKubeVirt().metadata.name ?? '';
    const kv = await c.kv
      .get<KubeVirt>(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE })
      .catch(() => undefined);
    say(`${VIRT_NAMESPACE}/${name}: ${kv === undefined ? 'KubeVirt NOT INSTALLED' : describeKubeVirt(kv)}`);
    const pods = (await rolePods(c)).map(podState);
    for (const p of pods)
      say(`  pod ${p.name}: ${p.ready ? 'ready' : 'NOT READY'}, ${String(p.restarts)} restarts`);
    return kubevirtAvailableIn(kv) && pods.every((p) => p.ready);
  } finally {
    await c.close();
  }
}

async function statusCmd(o: { dir: string }): Promise<void> {
  const st = await status(o.dir);
  say(`local cluster: ${st === undefined ? 'never brought up here' : st.ready ? 'up' : 'NOT READY'}`);
  const config = await kubeconfig(o.dir);
  const virt = st?.ready === true && config !== undefined && (await virtStatus(config));
  if (st?.ready !== true || !virt) process.exitCode = 3;
}

async function downCmd(o: { dir: string }): Promise<void> {
  const r = await down({ dir: o.dir, log });
  say(r.wasUp ? `down; removed: ${r.removed.join(', ') || 'nothing'}` : 'was not up; cleaned leftovers');
}

const program = new Command('run').description('the local cluster with the built roles and the example VM');
const dir = ['--dir <dir>', 'stack dir', defaultStackDir()] as const;
const guarded =
  (f: (o: { dir: string }) => Promise<void>) =>
  async (o: { dir: string }): Promise<void> => {
    try {
      await f(o);
    } catch (err) {
      console.error(`./dev run: ${errorMessage(err)}`);
      process.exitCode = 1;
    }
  };
program
  .command('up', { isDefault: true })
  .description('bring everything up')
  .option(...dir)
  .action(guarded(upCmd));
program
  .command('status')
  .description('what runs')
  .option(...dir)
  .action(guarded(statusCmd));
program
  .command('down')
  .description('stop everything, leave the host clean')
  .option(...dir)
  .action(guarded(downCmd));
await program.parseAsync();
