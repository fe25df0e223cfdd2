/**
 * `./dev run [up|status|down]`, the README's run command: the local single-node Kubernetes with the
 * virtualization roles that are built, and the example VM.
 * - up (default): the cluster (e2e/local, idempotent), the CRDs, node `local` schedulable, the rewriter and the
 *   controller as host processes, then the example VM (manifests/examples/vm-tiny.yaml, namespace default),
 *   with progress until its launcher Pod runs on `local`, answers on its socket and the VMI is Scheduled;
 *   prints what runs, what is not built yet, and the KUBECONFIG line. The cluster stays up.
 * - status: what runs (exit 3 when something does not); down: everything stopped, the host as it was.
 */
import { Command } from 'commander';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/api/index.ts';
import type { Pod } from '../../lib/api/core/pod.ts';
import { errorMessage, isAlreadyExists } from '../../lib/kernel/errors/errors.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { newCmdClient } from '../../lib/rpc/index.ts';
import { defaultStackDir, down, status, up } from './cluster.ts';
import { readHostRoles, REWRITER_LISTEN, roleRunning, startHostRoles } from './host-roles.ts';
import { exampleVm, launcherSocketPath, prepareForVirt, virtClients, type VirtClients } from './virt.ts';

const NS = 'default';
const log = createLogger({ component: 'dev-run' });
const say = (line: string): void => {
  console.log(line);
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function waitScheduled(
  c: VirtClients,
  name: string,
  dir: string,
): Promise<{ pod: Pod; socket: string }> {
  let last = '';
  const step = (what: string): void => {
    if (what !== last) say(`  … ${what}`);
    last = what;
  };
  return waitFor(
    async () => {
      const vmi = await c.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: NS });
      const pods = await c.kv.list<Pod>(PODS, {
        namespace: NS,
        labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`,
      });
      const pod = pods.items[0];
      step(`VMI ${vmi.status?.phase ?? 'Pending'}, launcher Pod ${pod?.status?.phase ?? 'not created yet'}`);
      if (pod === undefined || vmi.status?.phase !== 'Scheduled') return undefined;
      const socket = launcherSocketPath(pod.metadata.uid ?? '', dir);
      const launcher = await newCmdClient(socket);
      launcher.close();
      return { pod, socket };
    },
    'the example VM to be Scheduled with its launcher listening',
    { timeoutMs: 180_000, intervalMs: 250 },
  );
}

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
    await prepareForVirt(c);
    say('CRDs installed; node local marked schedulable');
    for (const r of await startHostRoles(cluster.kubeconfig, o.dir))
      say(`${r.name}: pid ${r.pid}, log ${r.logFile}`);
    await c.kv.create(VIRTUAL_MACHINES, await exampleVm(NS)).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    say(`example VM ${NS}/tiny created; waiting for its launcher`);
    const { pod, socket } = await waitScheduled(c, 'tiny', o.dir);
    say(
      `example VM: VMI Scheduled on node local; launcher Pod ${pod.metadata.name ?? ''} listens on ${socket}`,
    );
  } finally {
    await c.close();
  }
  say('');
  say(
    'Real here: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd 2, the kubelet and',
  );
  say(
    `kube-proxy of node local; the controller and the rewriter (kubevirt.io proxy on ${REWRITER_LISTEN}) on the`,
  );
  say('host; the launcher in its Pod from the project image, with its own libvirt (TCG).');
  say(
    'Not built yet: the handler (until it lands the guest is not started: the VMI stays Scheduled), the api',
  );
  say('(subresources, webhooks), the operator, pr-helper, and virtctl-ts commands besides version.');
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
