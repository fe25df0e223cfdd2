/**
 * The handle on a running test control plane. All of its state is in state.json, re-read before every
 * operation, so any process (jest setup, a jest worker, the CLI) can kill, restart or stop it.
 */
import { readFile, rm } from 'node:fs/promises';
import { KvError } from '../lib/kernel/errors/errors.ts';
import type { Logger } from '../lib/kernel/log/log.ts';
import { isRunning } from '../lib/kernel/process/proc.ts';
import { spawnProcess } from '../lib/kernel/process/spawn.ts';
import { stopProcess } from '../lib/kernel/process/stop.ts';
import { compactEtcd, etcdHealthy } from './etcd.ts';
import { httpsRequest, type Credentials } from './https.ts';
import { waitPortFree } from './ports.ts';
import { waitUntilReady } from './ready.ts';
import { readState, statePath, writeState, type ControlPlaneState } from './state.ts';

export interface ControlPlaneStatus {
  etcd: { pid: number; running: boolean; healthy: boolean };
  apiserver: { pid: number; running: boolean; ready: boolean };
}

export interface ControlPlane {
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly etcdEndpoint: string;
  readonly statePath: string;
  /** PIDs as last read from state.json (0: not running). */
  readonly pids: { etcd: number; apiserver: number };
  /** Kills kube-apiserver (SIGKILL by default) and waits until it is gone. */
  killApiServer(signal?: NodeJS.Signals): Promise<void>;
  /** Starts kube-apiserver again with the same args, etcd and port; waits for /readyz. */
  startApiServer(): Promise<void>;
  /** Compacts etcd to its current revision and returns that revision. */
  compactEtcd(): Promise<string>;
  status(): Promise<ControlPlaneStatus>;
  /** SIGTERM, then SIGKILL after a grace, by PID; removes the dir only when it is our own temp dir. */
  stop(): Promise<void>;
}

export class LocalControlPlane implements ControlPlane {
  constructor(
    private s: ControlPlaneState,
    private readonly log: Logger,
    private readonly readyTimeoutMs: number,
  ) {}

  get dir(): string {
    return this.s.dir;
  }
  get kubeconfigPath(): string {
    return this.s.kubeconfigPath;
  }
  get server(): string {
    return this.s.server;
  }
  get etcdEndpoint(): string {
    return this.s.etcdEndpoint;
  }
  get statePath(): string {
    return statePath(this.s.dir);
  }
  get pids(): { etcd: number; apiserver: number } {
    return { etcd: this.s.etcd.pid, apiserver: this.s.apiserver.pid };
  }

  private async refresh(): Promise<void> {
    this.s = await readState(this.statePath).catch(() => this.s);
  }

  private async creds(): Promise<Credentials> {
    const [ca, cert, key] = await Promise.all(
      [this.s.tls.ca, this.s.tls.cert, this.s.tls.key].map((f) => readFile(f, 'utf8')),
    );
    return { ca: ca ?? '', cert: cert ?? '', key: key ?? '' };
  }

  private async ready(): Promise<boolean> {
    const res = await httpsRequest(`${this.s.server}/readyz`, await this.creds(), { timeoutMs: 5_000 });
    return res.status === 200;
  }

  async killApiServer(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.refresh();
    const a = this.s.apiserver;
    await stopProcess(a.pid, a.bin, { signal });
    this.log.info('kube-apiserver stopped', { pid: a.pid, signal });
    a.pid = 0;
    await writeState(this.s);
  }

  async startApiServer(): Promise<void> {
    await this.refresh();
    const a = this.s.apiserver;
    if (isRunning(a.pid, a.bin))
      throw new KvError('KV_ERR_CONFIG', `kube-apiserver already runs (pid ${a.pid})`);
    await waitPortFree(this.s.ports.apiserver, 15_000);
    const child = await spawnProcess({
      bin: a.bin,
      args: a.args,
      log: a.logFile,
      detached: this.s.detached,
      unref: true,
    });
    a.pid = child.pid;
    await writeState(this.s);
    const what = 'kube-apiserver';
    await waitUntilReady(() => this.ready(), { what, ...a, timeoutMs: this.readyTimeoutMs });
    this.log.info('kube-apiserver ready', { pid: a.pid, server: this.s.server });
  }

  async ensureNamespace(name: string): Promise<void> {
    const creds = await this.creds();
    const url = `${this.s.server}/api/v1/namespaces`;
    if ((await httpsRequest(`${url}/${name}`, creds)).status === 200) return;
    const res = await httpsRequest(url, creds, { method: 'POST', body: { metadata: { name } } });
    if (res.status !== 201 && res.status !== 409) {
      throw new KvError('KV_ERR_STATUS', `create namespace ${name}: HTTP ${res.status}: ${res.body}`);
    }
  }

  async compactEtcd(): Promise<string> {
    await this.refresh();
    const rev = await compactEtcd(this.s.etcdEndpoint);
    this.log.info('etcd compacted', { revision: rev });
    return rev;
  }

  async status(): Promise<ControlPlaneStatus> {
    await this.refresh();
    const { etcd, apiserver } = this.s;
    const etcdRunning = isRunning(etcd.pid, etcd.bin);
    const apiRunning = isRunning(apiserver.pid, apiserver.bin);
    return {
      etcd: {
        pid: etcd.pid,
        running: etcdRunning,
        healthy: etcdRunning && (await etcdHealthy(this.s.etcdEndpoint)),
      },
      apiserver: {
        pid: apiserver.pid,
        running: apiRunning,
        ready: apiRunning && (await this.ready().catch(() => false)),
      },
    };
  }

  /** Stops both processes and keeps the dir (logs, data), whatever removeOnStop says. */
  async stopProcesses(): Promise<void> {
    await this.refresh();
    const { etcd, apiserver } = this.s;
    await stopProcess(apiserver.pid, apiserver.bin);
    await stopProcess(etcd.pid, etcd.bin);
    this.log.info('control plane stopped', { dir: this.s.dir, etcd: etcd.pid, apiserver: apiserver.pid });
    etcd.pid = 0;
    apiserver.pid = 0;
    await writeState(this.s);
  }

  async stop(): Promise<void> {
    await this.stopProcesses();
    if (this.s.removeOnStop) await rm(this.s.dir, { recursive: true, force: true });
  }
}
