/**
 * `npm run local -- up|status|down|kubeconfig [--dir DIR] [--no-image]`: the local single-node cluster.
 * `up` is idempotent (says so when already up) and prints what it started and how long each part took;
 * `status` exits 3 unless everything runs and node `local` is Ready; `kubeconfig` prints the admin
 * kubeconfig's path.
 */
import { Command } from 'commander';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { defaultStackDir, down, kubeconfig, status, up, type ClusterStatus } from './cluster.ts';

const log = createLogger({ component: 'local-cluster' });

interface Opts {
  dir: string;
  image?: boolean;
  nodes?: string;
}

function printStatus(st: ClusterStatus): void {
  const line = (name: string, pid: number, ok: boolean): void => {
    console.log(`  ${name.padEnd(24)} pid ${String(pid).padEnd(8)} ${ok ? 'running' : 'NOT RUNNING'}`);
  };
  line('etcd', st.etcd.pid, st.etcd.running);
  line('kube-apiserver', st.kubeApiServer.pid, st.kubeApiServer.running);
  for (const [name, p] of Object.entries(st.processes)) line(name, p.pid, p.running);
  for (const [name, p] of Object.entries(st.secondNode?.processes ?? {}))
    line(`node2 ${name}`, p.pid, p.running);
  const second = st.secondNode === undefined ? '' : `; node local-2 Ready: ${st.secondNode.ready}`;
  console.log(`  node local Ready: ${st.nodeReady}${second}; bridge: ${st.bridge}; all ready: ${st.ready}`);
}

async function upCmd(o: Opts): Promise<void> {
  if (o.nodes !== undefined && o.nodes !== '1' && o.nodes !== '2') {
    console.error(`--nodes ${o.nodes}: the local cluster has 1 or 2 nodes`);
    process.exitCode = 2;
    return;
  }
  const nodes = o.nodes === '2' ? 2 : 1;
  const r = await up({ dir: o.dir, log, image: o.image !== false, nodes });
  console.log(r.alreadyUp ? 'already up:' : 'started:');
  printStatus(r.status);
  for (const [part, ms] of Object.entries(r.timings))
    console.log(`  ${part.padEnd(34)} ${(ms / 1000).toFixed(2)} s`);
  console.log(`images: ${r.images.join(', ')}`);
  console.log(`export KUBECONFIG=${r.kubeconfig}`);
}

async function statusCmd(o: Opts): Promise<void> {
  const st = await status(o.dir);
  if (st === undefined) {
    console.log(`no local cluster state in ${o.dir}`);
    process.exitCode = 3;
    return;
  }
  printStatus(st);
  if (!st.ready) process.exitCode = 3;
}

async function downCmd(o: Opts): Promise<void> {
  const r = await down({ dir: o.dir, log });
  if (!r.wasUp) console.log('was not up; cleaned leftovers');
  for (const [part, ms] of Object.entries(r.timings))
    console.log(`  ${part.padEnd(34)} ${(ms / 1000).toFixed(2)} s`);
  console.log(`removed: ${r.removed.join(', ') || 'nothing'}`);
}

async function kubeconfigCmd(o: Opts): Promise<void> {
  const k = await kubeconfig(o.dir);
  if (k === undefined) {
    console.log(`no local cluster state in ${o.dir}`);
    process.exitCode = 3;
    return;
  }
  console.log(k);
}

const program = new Command('local').description('a real single-node Kubernetes on this machine');
const dir = ['--dir <dir>', 'stack dir', defaultStackDir()] as const;
program
  .command('up')
  .description('start (idempotent)')
  .option(...dir)
  .option('--no-image', 'skip the project image')
  .option('--nodes <n>', '2 adds a second node (local-2) in namespaces of its own')
  .action(upCmd);
program
  .command('status')
  .description('exit 0 when up and Ready')
  .option(...dir)
  .action(statusCmd);
program
  .command('down')
  .description('stop and clean the host')
  .option(...dir)
  .action(downCmd);
program
  .command('kubeconfig')
  .description('print the admin kubeconfig path')
  .option(...dir)
  .action(kubeconfigCmd);
await program.parseAsync();
