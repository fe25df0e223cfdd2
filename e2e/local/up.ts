/**
 * `up`: brings the local cluster up, or says it already is. Order: builds (cached), the host network
 * (bridge, node IP, our chains, the Service route), certificates, etcd + kube-apiserver, containerd with
 * the local images, kube-controller-manager + kube-scheduler, the kubelet until node `local` is Ready,
 * kube-proxy, then the `local` StorageClass and its PVs. Each part that already runs is left alone, so a
 * half-up stack (one process died) is completed. Every part's duration is returned.
 */
import { mkdir } from 'node:fs/promises';
import { realClock } from '../../lib/kernel/clock.ts';
import { createLogger, type Logger } from '../../lib/kernel/log/log.ts';
import { freePorts } from '../../testenv/ports.ts';
import { buildBinaries, buildImages } from './builds.ts';
import { save, type StepContext } from './context.ts';
import { attempt } from './exec.ts';
import { createBridge, existedMap } from './host.ts';
import { installOurChains, savedTables } from './iptables.ts';
import { Api } from './kube.ts';
import { IMAGES, layout, type Layout } from './layout.ts';
import { runDirFor } from './rundir.ts';
import { readLocalState, type HostBaseline, type LocalState } from './state.ts';
import { statusOf, type ClusterStatus } from './status.ts';
import { ensureSecondNode } from './second-node-up.ts';
import { ensureStorage } from './storage.ts';
import { ensureApiServer, ensureControllers } from './up-control.ts';
import { assertImages, ensureContainerd, ensureKubelet, ensureKubeProxy, importImages } from './up-node.ts';

export interface UpOptions {
  /** Stack dir (default ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/local). */
  dir?: string;
  log?: Logger;
  /** Build and import the project's image too (default true). */
  image?: boolean;
  readyTimeoutMs?: number;
  /** 2 adds the second node (second-node.ts), also to a cluster that is up; 1 (default) leaves it as it is. */
  nodes?: 1 | 2;
}

export interface UpResult {
  alreadyUp: boolean;
  kubeconfig: string;
  server: string;
  /** Milliseconds per part, in the order they ran. */
  timings: Record<string, number>;
  pids: Record<string, number>;
  images: string[];
  status: ClusterStatus;
}

async function baseline(): Promise<HostBaseline> {
  const nf = await attempt('nfacct', ['list']);
  return {
    existed: existedMap(),
    iptablesTables: { ip: await savedTables('ip'), ip6: await savedTables('ip6') },
    nfacct: [...nf.stdout.matchAll(/\} = (\S+);/g)].map((m) => m[1] ?? ''),
  };
}

async function freshState(L: Layout): Promise<LocalState> {
  const [kubeletHealthz = 0, kcm = 0, scheduler = 0, proxyHealthz = 0, proxyMetrics = 0] = await freePorts(5);
  return {
    version: 1,
    dir: L.dir,
    controlPlaneState: `${L.controlPlane}/state.json`,
    kubeconfig: `${L.controlPlane}/kubeconfig`,
    server: '',
    runDir: runDirFor(L.dir),
    ports: { kubelet: 10250, kubeletHealthz, kcm, scheduler, proxyHealthz, proxyMetrics },
    processes: {},
    baseline: await baseline(),
    network: false,
    kubeletRootMounted: false,
    images: [],
  };
}

/** A stack that was fully taken down takes a new host baseline; one that is (partly) up keeps its own. */
async function initialState(L: Layout, prev: LocalState | undefined): Promise<LocalState> {
  if (prev === undefined) return freshState(L);
  const partlyUp = prev.network || Object.values(prev.processes).some((p) => p.pid !== 0);
  return partlyUp ? prev : { ...prev, baseline: await baseline() };
}

async function timed<T>(c: StepContext, name: string, f: () => Promise<T>): Promise<T> {
  const t = realClock.now();
  const r = await f();
  c.timings[name] = realClock.now() - t;
  return r;
}

/** A cluster that is up: only the images brought up to date (a rebuilt image is imported), and the second node. */
async function upToDate(c0: Omit<StepContext, 'bins' | 'readyTimeoutMs'> & { o: UpOptions }) {
  const { o, ...rest } = c0;
  const c: StepContext = {
    ...rest,
    bins: await buildBinaries(rest.timings),
    readyTimeoutMs: o.readyTimeoutMs ?? 120_000,
  };
  const images = await buildImages(c.timings, o.image ?? true);
  await importImages(c, images);
  const api = await Api.fromKubeconfig(c.s.kubeconfig);
  if (o.nodes === 2) await ensureSecondNode(c, api, images);
  // Volumes the files before this one released (Retain) are replaced: a shared cluster's pool stays full.
  await timed(c, 'storage class and PVs', () => ensureStorage(api, c.L.pv));
  return summary(c.s, c.timings, await statusOf(c.s));
}

export async function up(o: UpOptions = {}): Promise<UpResult> {
  const L = layout(o.dir);
  const log = o.log ?? createLogger({ component: 'local-cluster' });
  await Promise.all([L.dir, L.logs].map((d) => mkdir(d, { recursive: true })));
  const prev = await readLocalState(L.state);
  const timings: Record<string, number> = {};
  if (prev !== undefined && (await statusOf(prev)).ready) {
    return { alreadyUp: true, ...(await upToDate({ L, s: prev, log, timings, o })) };
  }
  const started = realClock.now();
  const bins = await buildBinaries(timings);
  const images = await buildImages(timings, o.image ?? true);
  const s = await initialState(L, prev);
  const c: StepContext = { L, s, bins, log, timings, readyTimeoutMs: o.readyTimeoutMs ?? 120_000 };
  await save(c);
  await timed(c, 'network', async () => {
    await createBridge();
    await installOurChains();
    s.network = true;
    await save(c);
  });
  const parts = await ensureApiServer(c);
  const api = await Api.fromKubeconfig(s.kubeconfig);
  await ensureContainerd(c);
  const names = await importImages(c, images);
  assertImages(names, [
    IMAGES.pause,
    IMAGES.guestDisk,
    IMAGES.guestIso,
    IMAGES.guestKernel,
    ...(images.virt === undefined ? [] : [IMAGES.virt]),
  ]);
  await ensureControllers(c, parts);
  await ensureKubelet(c, parts, api);
  await ensureKubeProxy(c, parts);
  if (o.nodes === 2 || s.secondNode?.namespaces === true) await ensureSecondNode(c, api, images);
  await timed(c, 'storage class and PVs', () => ensureStorage(api, L.pv));
  timings['total'] = realClock.now() - started;
  await save(c);
  const st = await statusOf(s);
  log.info('local cluster up', { dir: L.dir, ms: timings['total'], kubeconfig: s.kubeconfig });
  return { alreadyUp: false, ...summary(s, timings, st) };
}

function summary(
  s: LocalState,
  timings: Record<string, number>,
  status: ClusterStatus,
): Omit<UpResult, 'alreadyUp'> {
  const pids = Object.fromEntries(Object.entries(s.processes).map(([k, p]) => [k, p.pid]));
  return { kubeconfig: s.kubeconfig, server: s.server, timings, pids, images: s.images, status };
}
