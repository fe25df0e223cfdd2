/**
 * The node: containerd 2 (our config, our socket, the v2 shim first on its PATH) with the local images
 * imported into its k8s.io namespace, the kubelet in its own mount namespace, and kube-proxy. Each part is
 * started only when it does not already run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { certPaths } from '../../testenv/certs.ts';
import type { ImageArchives } from './builds.ts';
import { CNI_BIN_DIR, cniConflist } from './cni.ts';
import { kubeProxyArgs, kubeProxyConfig } from './components.ts';
import { containerdConfig } from './containerd-config.ts';
import { save, type StepContext } from './context.ts';
import { run } from './exec.ts';
import { sharedBindMount } from './host.ts';
import type { Api } from './kube.ts';
import {
  KUBELET_TUNABLES,
  kubeletArgs,
  kubeletCommand,
  kubeletConfig,
  shieldFile,
} from './kubelet-config.ts';
import { FIRST_NODE, IMAGES, imageVolumesDir, NODE_NAME, type Layout, type NodeSpec } from './layout.ts';
import type { ControlPlaneParts } from './up-control.ts';
import { containerdUp, healthz } from './probes.ts';
import { running, startLocal, waitHealthy } from './procs.ts';

/** containerd's config and the CNI config list of a node, at the paths that node sees them. */
export function containerdFiles(
  L: Layout,
  runDir: string,
  node: NodeSpec = FIRST_NODE,
): { path: string; text: string }[] {
  const ctrd = L.containerd;
  const config = containerdConfig({
    root: ctrd.root,
    state: ctrd.state,
    socket: ctrd.socket,
    runDir,
    cniConfDir: L.cni.confDir,
    cniBinDir: CNI_BIN_DIR,
    varDir: ctrd.var,
    cdiDir: ctrd.cdi,
  });
  return [
    { path: ctrd.config, text: config },
    { path: join(L.cni.confDir, '10-kvts.conflist'), text: cniConflist(join(L.dir, 'cni', 'ipam'), node) },
  ];
}

export async function ensureContainerd(c: StepContext): Promise<void> {
  if (running(c.s.processes.containerd)) return;
  const t = realClock.now();
  const ctrd = c.L.containerd;
  await Promise.all(
    [ctrd.root, ctrd.state, c.L.cni.confDir, c.s.runDir, imageVolumesDir(c.L)].map((d) =>
      mkdir(d, { recursive: true }),
    ),
  );
  await sharedBindMount(imageVolumesDir(c.L));
  for (const f of containerdFiles(c.L, c.s.runDir)) await writeFile(f.path, f.text);
  const path = `${c.bins.containerdBinDir}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`;
  const p = {
    bin: c.bins.containerd,
    args: ['--config', ctrd.config],
    spawn: { cmd: '/usr/bin/env', args: [`PATH=${path}`, c.bins.containerd, '--config', ctrd.config] },
    logFile: join(c.L.logs, 'containerd.log'),
    pid: 0,
  };
  c.s.processes.containerd = p;
  await startLocal(p);
  await save(c);
  await waitHealthy('containerd', p, () => containerdUp(ctrd.socket), c.readyTimeoutMs);
  c.timings['start: containerd'] = realClock.now() - t;
}

interface ArchiveIndex {
  manifests?: { digest?: string; annotations?: Record<string, string> }[];
}

/** The image name and manifest digest an OCI archive's index.json names. */
async function archiveRef(archive: string): Promise<{ name: string; digest: string } | undefined> {
  const index = JSON.parse(await run('tar', ['-xOf', archive, 'index.json'])) as ArchiveIndex;
  const m = index.manifests?.[0];
  const a = m?.annotations ?? {};
  const name = a['io.containerd.image.name'] ?? a['org.opencontainers.image.ref.name'];
  return name === undefined || m?.digest === undefined ? undefined : { name, digest: m.digest };
}

/** `ctr images ls` as name → manifest digest. */
function listed(out: string): Map<string, string> {
  const rows = out
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
  return new Map(rows.filter((r) => r.length >= 3).map((r) => [r[0] ?? '', r[2] ?? '']));
}

/**
 * The project's image also under a tag naming its content (`localhost/kubevirt-ts:<12 hex of its digest>`), which
 * the operator's install uses, so a rebuilt image is a new tag and the operator rolls the roles over to it (under
 * the fixed tag, running Pods would keep the old one); tags of earlier builds are dropped.
 */
async function tagByContent(
  ctr: (args: string[]) => Promise<string>,
  archive: string,
  have: Map<string, string>,
): Promise<void> {
  const ref = await archiveRef(archive);
  if (ref === undefined) return;
  const tag = contentTag(ref.digest);
  if (have.get(tag) !== ref.digest) await ctr(['images', 'tag', '--force', ref.name, tag]);
  const stale = [...have.keys()].filter((n) => CONTENT_TAG.test(n) && n !== tag);
  if (stale.length > 0) await ctr(['images', 'rm', ...stale]);
}

const CONTENT_TAG = new RegExp(`^${IMAGES.virt.replace(/:.*$/, '')}:[0-9a-f]{12}$`);
const contentTag = (digest: string): string =>
  `${IMAGES.virt.replace(/:.*$/, '')}:${digest.replace(/^sha256:/, '').slice(0, 12)}`;

/** The project image's content tag among the names containerd holds (what the operator installs from). */
export function virtContentTag(images: readonly string[]): string | undefined {
  return images.find((n) => CONTENT_TAG.test(n));
}

/**
 * ctr images import of each archive into k8s.io, skipping one containerd already holds at the same digest with
 * its id reference;
 * returns the image names containerd then lists.
 */
export async function importImages(
  c: StepContext,
  images: ImageArchives,
  /** argv run before ctr: the second node's nsenter. */
  via: readonly string[] = [],
): Promise<string[]> {
  const t = realClock.now();
  const argv = [...via, c.bins.ctr, '--address', c.L.containerd.socket, '--namespace', 'k8s.io'];
  const ctr = (args: string[]): Promise<string> => run(argv[0] ?? '', [...argv.slice(1), ...args]);
  const archives = [images.pause, images.guestDisk, images.guestIso, images.guestKernel, images.virt].filter(
    (a): a is string => a !== undefined,
  );
  const have = listed(await ctr(['images', 'ls']));
  const idRefs = (digest: string): string[] =>
    [...have].filter(([n, d]) => d === digest && n.startsWith('sha256:')).map(([n]) => n);
  for (const a of archives) {
    const ref = await archiveRef(a);
    const held = ref === undefined ? undefined : have.get(ref.name);
    if (ref !== undefined && held === ref.digest && idRefs(held).length > 0) continue;
    // An import that moves a name to a new image is an update to the CRI plugin, which then knows the image by
    // an id it never made a reference for (image volumes fail with "not found"). Dropping the name and the old
    // id first makes the import a create, as on a fresh node, and the id reference is made.
    if (ref !== undefined && held !== undefined) await ctr(['images', 'rm', ref.name, ...idRefs(held)]);
    await ctr(['images', 'import', '--local', a]);
  }
  if (images.virt !== undefined) await tagByContent(ctr, images.virt, listed(await ctr(['images', 'ls'])));
  const now = listed(await ctr(['images', 'ls']));
  const names = [...now.keys()].filter((n) => !n.startsWith('sha256:'));
  // Id references of images no name points to any more: what earlier builds left.
  const current = new Set(names.map((n) => now.get(n)));
  const orphans = [...now].filter(([n, d]) => n.startsWith('sha256:') && !current.has(d)).map(([n]) => n);
  if (orphans.length > 0) await ctr(['images', 'rm', ...orphans]);
  c.s.images = names;
  await save(c);
  c.timings['import images'] = realClock.now() - t;
  return names;
}

async function kubeletFiles(c: StepContext, parts: ControlPlaneParts): Promise<void> {
  const k = c.L.kubelet;
  await Promise.all(
    [k.root, k.sysctls, k.podLogs, k.volumePlugins].map((d) => mkdir(d, { recursive: true })),
  );
  for (const [key, value] of Object.entries(KUBELET_TUNABLES)) {
    await writeFile(shieldFile(k.sysctls, key), `${value}\n`);
  }
  await writeFile(
    k.config,
    kubeletConfig({
      caFile: certPaths(c.L.controlPlane).ca.cert,
      tlsCert: parts.nodeCerts.kubeletServing.cert,
      tlsKey: parts.nodeCerts.kubeletServing.key,
      containerdSocket: c.L.containerd.socket,
      podLogsDir: k.podLogs,
      volumePluginDir: k.volumePlugins,
      healthzPort: c.s.ports.kubeletHealthz,
      port: c.s.ports.kubelet,
    }),
  );
  await sharedBindMount(k.root);
  c.s.kubeletRootMounted = true;
}

interface NodeDoc {
  status?: { conditions?: { type?: string; status?: string; lastHeartbeatTime?: string }[] };
  spec?: { taints?: { key?: string }[] };
}

const notReadyTaint = (node: NodeDoc | undefined): boolean =>
  (node?.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/not-ready');

/**
 * The node (default `local`) is Ready and untainted; with `since` (ms since the epoch) its Ready heartbeat must
 * also be that recent, so a status left in etcd by an earlier run does not count (times have 1 s resolution).
 */
export async function nodeReady(api: Api, since?: number, name: string = NODE_NAME): Promise<boolean> {
  const node = await api.find<NodeDoc>(`/api/v1/nodes/${name}`);
  const cond = node?.status?.conditions?.find((x) => x.type === 'Ready');
  const fresh = since === undefined || Date.parse(cond?.lastHeartbeatTime ?? '') >= since - 1_000;
  return cond?.status === 'True' && fresh && !notReadyTaint(node);
}

export async function ensureKubelet(c: StepContext, parts: ControlPlaneParts, api: Api): Promise<void> {
  if (running(c.s.processes.kubelet)) return;
  const t = realClock.now();
  await kubeletFiles(c, parts);
  const args = kubeletArgs(c.L.kubelet.config, parts.kubeconfigs.kubelet, c.L.kubelet.root);
  const [cmd, spawnArgs] = kubeletCommand(c.bins.kubelet, args, c.L.kubelet.sysctls);
  const p = {
    bin: c.bins.kubelet,
    args,
    spawn: { cmd, args: spawnArgs },
    logFile: join(c.L.logs, 'kubelet.log'),
    pid: 0,
  };
  c.s.processes.kubelet = p;
  await startLocal(p);
  await save(c);
  await waitHealthy(
    'kubelet',
    p,
    () => healthz(`http://127.0.0.1:${c.s.ports.kubeletHealthz}/healthz`),
    c.readyTimeoutMs,
  );
  c.timings['start: kubelet'] = realClock.now() - t;
  const since = Date.now();
  await waitHealthy('node local Ready', p, () => nodeReady(api, since), c.readyTimeoutMs);
  c.timings['node Ready'] = realClock.now() - t;
}

export async function ensureKubeProxy(c: StepContext, parts: ControlPlaneParts): Promise<void> {
  if (running(c.s.processes.kubeProxy)) return;
  const t = realClock.now();
  const cfg = kubeProxyConfig({
    kubeconfig: parts.kubeconfigs.kubeProxy,
    healthzPort: c.s.ports.proxyHealthz,
    metricsPort: c.s.ports.proxyMetrics,
  });
  await writeFile(c.L.kubeProxy.config, cfg);
  const p = {
    bin: c.bins.kubeProxy,
    args: kubeProxyArgs(c.L.kubeProxy.config),
    logFile: join(c.L.logs, 'kube-proxy.log'),
    pid: 0,
  };
  c.s.processes.kubeProxy = p;
  await startLocal(p);
  await save(c);
  await waitHealthy(
    'kube-proxy',
    p,
    () => healthz(`http://127.0.0.1:${c.s.ports.proxyHealthz}/healthz`),
    c.readyTimeoutMs,
  );
  c.timings['start: kube-proxy'] = realClock.now() - t;
}

export function assertImages(names: string[], wanted: string[]): void {
  const missing = wanted.filter((w) => !names.includes(w));
  if (missing.length > 0) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `containerd lacks ${missing.join(', ')} after import (has ${names.join(', ')})`,
    );
  }
}
