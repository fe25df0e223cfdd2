/**
 * `./dev run [up|status|down]`, the README's run command: the local single-node Kubernetes with the
 * virtualization roles that are built, and the example VM.
 * - up (default): the cluster (e2e/local, idempotent), the CRDs, node `local` schedulable, the node-labeller,
 *   the rewriter, the api, two controllers and the handler as host processes (host-roles.ts), the api
 *   registered with the aggregation layer and its webhooks (virt-registration.ts), then the example VM
 *   (manifests/examples/vm-tiny.yaml, namespace default), with progress until it is Running, and the last lines
 *   of its serial console; prints what runs, what is not built yet, and the KUBECONFIG line. The cluster stays up.
 * - status: what runs (exit 3 when something does not); down: everything stopped, the host as it was.
 */
import { Command } from 'commander';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { errorMessage, isAlreadyExists } from '../../lib/kernel/errors/errors.ts';
import { loadRestConfig, PODS } from '../../lib/kernel/kube/index.ts';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { readConsoleThroughApi } from './api-console.ts';
import { defaultStackDir, down, status, up } from './cluster.ts';
import {
  DEV_RUN_ADMISSION,
  readHostRoles,
  REWRITER_LISTEN,
  rewriterSocket,
  roleRunning,
} from './host-roles.ts';
import { layout } from './layout.ts';
import { APISERVICE } from './virt-registration.ts';
import { admitted, startVirtStack } from './virt-stack.ts';
import { exampleVm, virtClients, type VirtClients } from './virt.ts';

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
  await c.kv.create(VIRTUAL_MACHINES, await exampleVm(NS)).catch((err: unknown) => {
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
}

const SUMMARY = [
  'Real here: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd 2, the kubelet and',
  'kube-proxy of node local; on the host: the rewriter (kubevirt.io proxy, webhook proxy),',
  'the api behind kube-apiserver (subresources.kubevirt.io, webhooks), two controllers (one leader) and the',
  'handler (device plugins registered with the kubelet, REST server); the launcher in its Pod from the',
  'project image, with its own libvirt and QEMU (TCG). Not built yet: the operator; pr-helper is not run here.',
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
    for (const r of await startVirtStack(c, cluster.kubeconfig, o.dir))
      say(`${r.name}: pid ${r.pid}, log ${r.logFile}`);
    say(`api: served as ${APISERVICE} through kube-apiserver; CRDs installed, node local schedulable`);
    await admitted(c, NS);
    say(`webhooks: admit namespace ${NS} (label ${DEV_RUN_ADMISSION.join('=')})`);
    await exampleVmUp(c, cluster.kubeconfig);
  } finally {
    await c.close();
  }
  say('');
  for (const line of SUMMARY) say(line);
  const socket = rewriterSocket(layout(o.dir));
  say(
    `kubevirt.io names: the rewriter on ${REWRITER_LISTEN} for a client with a token of its own, or as the`,
  );
  say(
    `roles' user on its socket: curl --unix-socket ${socket} http://localhost/apis/kubevirt.io/v1/virtualmachines`,
  );
  say(`done in ${seconds(Date.now() - t0)}; \`./dev run status\` and \`./dev run down\`.`);
  say(`export KUBECONFIG=${cluster.kubeconfig}`);
}

async function statusCmd(o: { dir: string }): Promise<void> {
  const st = await status(o.dir);
  const roles = await readHostRoles(o.dir);
  say(`local cluster: ${st === undefined ? 'never brought up here' : st.ready ? 'up' : 'NOT READY'}`);
  for (const r of roles) say(`${r.name}: pid ${r.pid} ${roleRunning(r) ? 'running' : 'NOT RUNNING'}`);
  if (st?.ready !== true || roles.length === 0 || !roles.every(roleRunning)) process.exitCode = 3;
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
