/**
 * A real control plane (etcd + kube-apiserver) on loopback for integration tests and the local stack.
 * startControlPlane starts it; attachControlPlane controls a running one from its state.json (jest
 * workers, the testenv CLI). Every process is tracked and stopped by PID.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../lib/kernel/clock.ts';
import { KvError } from '../lib/kernel/errors/errors.ts';
import { createLogger, type Logger } from '../lib/kernel/log/log.ts';
import { isRunning } from '../lib/kernel/process/proc.ts';
import { spawnProcess } from '../lib/kernel/process/spawn.ts';
import { writeAdmissionConfig } from './admission-config.ts';
import { apiServerArgs } from './apiserver-args.ts';
import { controlPlaneBinaries, type ControlPlaneBinaries } from './binaries.ts';
import { ensureCerts } from './certs.ts';
import { etcdArgs, etcdHealthy } from './etcd.ts';
import { writeAdminKubeconfig } from './kubeconfig.ts';
import { LocalControlPlane, type ControlPlane } from './local-control-plane.ts';
import { freePorts, portsFree } from './ports.ts';
import { waitUntilReady } from './ready.ts';
import { readState, statePath, writeState, type ControlPlaneState } from './state.ts';

export type { ControlPlane } from './local-control-plane.ts';

export interface StartOptions {
  /** State dir (certs, etcd data, logs, kubeconfig, state.json); a new temp dir when absent. */
  dir?: string;
  log?: Logger;
  /** Processes run in their own session and outlive the caller (testenv CLI `up`). */
  detached?: boolean;
  /** Keep a temp dir made here on stop() (a caller-given dir is never removed). */
  keep?: boolean;
  /** Use these binaries instead of asking build.sh. */
  binaries?: ControlPlaneBinaries;
  readyTimeoutMs?: number;
  /**
   * Adjusts kube-apiserver's flags (e2e/local adds the kubelet client flags); the result is what runs and
   * what state.json keeps for restarts. Absent: the defaults of apiserver-args.ts.
   */
  apiServerArgs?: (defaults: string[]) => string[];
  /**
   * The address kube-apiserver binds and advertises (default 127.0.0.1). The local cluster gives its bridge
   * address, where Pods reach it through the `kubernetes` Service.
   */
  address?: string;
}

const DEFAULT_READY_TIMEOUT_MS = 90_000;

async function refuseIfRunning(dir: string): Promise<void> {
  const s = await readState(statePath(dir)).catch(() => undefined);
  if (s === undefined) return;
  if (isRunning(s.etcd.pid, s.etcd.bin) || isRunning(s.apiserver.pid, s.apiserver.bin)) {
    throw new KvError('KV_ERR_CONFIG', `a control plane already runs from ${dir} (stop it first)`);
  }
}

/** The ports of the previous run in this dir when they are still free (a stable server URL), else new ones. */
async function pickPorts(dir: string, address: string): Promise<number[]> {
  const prev = (await readState(statePath(dir)).catch(() => undefined))?.ports;
  const ports = prev === undefined ? [] : [prev.apiserver, prev.etcdClient, prev.etcdPeer];
  const free = ports.length > 0 && (await portsFree(ports)) && (await portsFree(ports.slice(0, 1), address));
  return free ? ports : freePorts(3);
}

async function initialState(
  dir: string,
  o: StartOptions,
  bins: ControlPlaneBinaries,
): Promise<ControlPlaneState> {
  const address = o.address ?? '127.0.0.1';
  const certs = await ensureCerts(dir, [address]);
  const admissionConfig = await writeAdmissionConfig(dir, certs.webhookClient);
  const [apiserverPort = 0, etcdClient = 0, etcdPeer = 0] = await pickPorts(dir, address);
  const etcdEndpoint = `http://127.0.0.1:${etcdClient}`;
  const detached = o.detached ?? false;
  return {
    version: 1,
    dir,
    kubeconfigPath: join(dir, 'kubeconfig'),
    server: `https://${address}:${apiserverPort}`,
    etcdEndpoint,
    ports: { apiserver: apiserverPort, etcdClient, etcdPeer },
    tls: { ca: certs.ca.cert, cert: certs.admin.cert, key: certs.admin.key },
    detached,
    removeOnStop: o.dir === undefined && o.keep !== true,
    etcd: {
      bin: bins.etcd,
      args: etcdArgs({ dataDir: join(dir, 'etcd'), clientPort: etcdClient, peerPort: etcdPeer }),
      logFile: join(dir, 'etcd.log'),
      pid: 0,
    },
    apiserver: {
      bin: bins.kubeApiServer,
      args: (o.apiServerArgs ?? ((a: string[]) => a))(
        apiServerArgs({ certs, admissionConfig, etcdEndpoint, port: apiserverPort, address }),
      ),
      logFile: join(dir, 'kube-apiserver.log'),
      pid: 0,
    },
  };
}

async function startEtcd(s: ControlPlaneState, timeoutMs: number): Promise<void> {
  const e = s.etcd;
  const child = await spawnProcess({
    bin: e.bin,
    args: e.args,
    log: e.logFile,
    detached: s.detached,
    unref: true,
  });
  e.pid = child.pid;
  await writeState(s);
  await waitUntilReady(() => etcdHealthy(s.etcdEndpoint), { what: 'etcd', ...e, timeoutMs });
}

/** Starts etcd and kube-apiserver, writes the admin kubeconfig and state.json, waits for /readyz. */
export async function startControlPlane(o: StartOptions = {}): Promise<ControlPlane> {
  const log = o.log ?? createLogger({ component: 'testenv' });
  const dir = o.dir ?? (await mkdtemp(join(tmpdir(), 'kv-testenv-')));
  await mkdir(dir, { recursive: true });
  await refuseIfRunning(dir);
  const started = realClock.now();
  const bins = o.binaries ?? (await controlPlaneBinaries());
  const s = await initialState(dir, o, bins);
  const timeoutMs = o.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const cp = new LocalControlPlane(s, log, timeoutMs);
  try {
    await startEtcd(s, timeoutMs);
    await writeAdminKubeconfig(s.kubeconfigPath, { server: s.server, ...s.tls });
    await cp.startApiServer();
    await cp.ensureNamespace('default');
  } catch (err) {
    // Keep the dir: the error names its log files.
    await cp.stopProcesses().catch(() => undefined);
    throw err;
  }
  log.info('control plane started', { dir, server: s.server, ms: realClock.now() - started, ...cp.pids });
  return cp;
}

/** Controls a control plane some other process started, from its state.json. */
export async function attachControlPlane(stateFile: string, log?: Logger): Promise<ControlPlane> {
  const s = await readState(stateFile);
  return new LocalControlPlane(s, log ?? createLogger({ component: 'testenv' }), DEFAULT_READY_TIMEOUT_MS);
}
