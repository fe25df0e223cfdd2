/**
 * `npm run testenv -- up|down|status [--dir DIR]`: a long-lived local control plane (etcd +
 * kube-apiserver) for development. `up` starts it detached (it keeps running after the CLI exits),
 * `down` stops it by the PIDs in state.json (data kept), `status` reports what runs.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { createLogger } from '../lib/kernel/log/log.ts';
import { attachControlPlane, startControlPlane, type ControlPlane } from './controlplane.ts';
import { KUBECONFIG_ENV, STATE_ENV } from './handle.ts';
import { statePath } from './state.ts';

const defaultDir = join(
  process.env['KV_CACHE_DIR'] ?? join(homedir(), '.cache', 'kubevirt-ts'),
  'testenv-local',
);
const log = createLogger({ component: 'testenv' });

interface DirOption {
  dir: string;
}

async function printStatus(cp: ControlPlane): Promise<boolean> {
  const st = await cp.status();
  console.log(`dir:            ${cp.dir}`);
  console.log(`server:         ${cp.server}`);
  console.log(
    `etcd:           pid ${st.etcd.pid} ${st.etcd.healthy ? 'healthy' : st.etcd.running ? 'running, unhealthy' : 'not running'}`,
  );
  console.log(
    `kube-apiserver: pid ${st.apiserver.pid} ${st.apiserver.ready ? 'ready' : st.apiserver.running ? 'running, not ready' : 'not running'}`,
  );
  return st.etcd.healthy && st.apiserver.ready;
}

function printExports(cp: ControlPlane): void {
  console.log(`export ${KUBECONFIG_ENV}=${cp.kubeconfigPath}`);
  console.log(`export ${STATE_ENV}=${cp.statePath}   # enables the destructive test helpers`);
}

async function up(o: DirOption): Promise<void> {
  const existing = await attachControlPlane(statePath(o.dir), log).catch(() => undefined);
  const st = await existing?.status();
  if (existing !== undefined && (st?.etcd.running === true || st?.apiserver.running === true)) {
    console.log('already running:');
    await printStatus(existing);
    printExports(existing);
    return;
  }
  const cp = await startControlPlane({ dir: o.dir, log, detached: true });
  console.log(`kubeconfig:     ${cp.kubeconfigPath}`);
  console.log(`server:         ${cp.server}`);
  console.log(`pids:           etcd ${cp.pids.etcd}, kube-apiserver ${cp.pids.apiserver}`);
  console.log(`logs:           ${join(cp.dir, 'etcd.log')}, ${join(cp.dir, 'kube-apiserver.log')}`);
  printExports(cp);
  console.log('note: the virtualization roles are not built yet, so this local stack is the control plane only.');
}

async function down(o: DirOption): Promise<void> {
  const cp = await attachControlPlane(statePath(o.dir), log);
  await cp.stop();
  console.log(`stopped; data kept in ${o.dir}`);
}

async function status(o: DirOption): Promise<void> {
  const cp = await attachControlPlane(statePath(o.dir), log).catch(() => undefined);
  if (cp === undefined) {
    console.log(`no control plane state in ${o.dir}`);
    process.exitCode = 3;
    return;
  }
  if (!(await printStatus(cp))) process.exitCode = 3;
}

const program = new Command('testenv').description('local etcd + kube-apiserver for tests and development');
const dirOption = ['--dir <dir>', 'state dir (certs, etcd data, logs, kubeconfig)', defaultDir] as const;
program
  .command('up')
  .description('start detached, print KUBECONFIG')
  .option(...dirOption)
  .action(up);
program
  .command('down')
  .description('stop by PID (data kept)')
  .option(...dirOption)
  .action(down);
program
  .command('status')
  .description('exit 0 when etcd and kube-apiserver are ready')
  .option(...dirOption)
  .action(status);
await program.parseAsync();
