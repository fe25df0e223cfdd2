/**
 * Brings the second node (second-node.ts) up beside a running node `local`: its namespaces with the veth,
 * overlays and cgroup root, its kubelet certificates, then containerd (with the local images), the kubelet
 * until node `local-2` is Ready, and kube-proxy, each in its namespaces through nsenter. Parts that run are left
 * alone.
 */
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { certPaths } from '../../testenv/certs.ts';
import { freePorts } from '../../testenv/ports.ts';
import type { ImageArchives } from './builds.ts';
import { kubeProxyArgs, kubeProxyConfig } from './components.ts';
import { save, type StepContext } from './context.ts';
import { run } from './exec.ts';
import type { Api } from './kube.ts';
import { componentKubeconfig } from './kubeconfigs.ts';
import {
  KUBELET_TUNABLES,
  kubeletArgs,
  kubeletCommand,
  kubeletConfig,
  shieldFile,
} from './kubelet-config.ts';
import { NETWORK, SECOND_NODE } from './layout.ts';
import { ensureKubeletCerts } from './pki.ts';
import { containerdUp, healthz } from './probes.ts';
import { running, startLocal, waitHealthy } from './procs.ts';
import { HOST_VETH, inNode, nodeCgroupDir, overlays, secondNodeLayout, setupScript } from './second-node.ts';
import type { LocalProcess, SecondNodeState } from './state.ts';
import { containerdFiles, importImages, nodeReady } from './up-node.ts';

/** The v1 hierarchies under /sys/fs/cgroup (not the unified one of this hybrid host). */
async function v1Hierarchies(): Promise<string[]> {
  const all = await readdir('/sys/fs/cgroup', { withFileTypes: true }).catch(() => []);
  return all.filter((h) => h.isDirectory() && h.name !== 'unified').map((h) => h.name);
}

/** The kubelet's cgroupRoot in every v1 hierarchy; cpuset's takes its parent's CPUs and memory nodes. */
async function createCgroupRoot(): Promise<void> {
  for (const h of await v1Hierarchies()) {
    await mkdir(nodeCgroupDir(h), { recursive: true });
    if (h !== 'cpuset') continue;
    for (const f of ['cpuset.cpus', 'cpuset.mems']) {
      await copyFile(join('/sys/fs/cgroup/cpuset', f), join(nodeCgroupDir(h), f));
    }
  }
}

async function createNamespaces(c: StepContext): Promise<void> {
  const n = secondNodeLayout(c.L);
  const pairs = overlays(c.L, c.s.runDir);
  await Promise.all(pairs.flatMap(([from, to]) => [from, to].map((d) => mkdir(d, { recursive: true }))));
  await mkdir(n.nsDir, { recursive: true });
  await run('mount', ['--bind', n.nsDir, n.nsDir]);
  await run('mount', ['--make-private', n.nsDir]);
  await Promise.all([n.mntNs, n.netNs].map((f) => writeFile(f, '')));
  await run('unshare', [`--mount=${n.mntNs}`, `--net=${n.netNs}`, '--propagation', 'slave', 'true']);
  const [cmd = '', ...args] = inNode(n);
  await run(cmd, [...args, '/bin/sh', '-c', setupScript(c.L, c.s.runDir, process.pid)]);
  await run('ip', ['link', 'set', HOST_VETH, 'master', NETWORK.bridge, 'up']);
  await run('ip', ['route', 'replace', SECOND_NODE.podCidr, 'via', SECOND_NODE.ip, 'dev', NETWORK.bridge]);
  await createCgroupRoot();
}

/**
 * A process of the node: `argv` (which execs bin with args) spawned through nsenter, its log under the stack's
 * logs as `node2-<name>.log`.
 */
function nodeProcess(
  c: StepContext,
  name: string,
  p: { bin: string; args: string[]; argv: string[] },
): LocalProcess {
  return {
    bin: p.bin,
    args: p.args,
    spawn: { cmd: 'nsenter', args: [...inNode(secondNodeLayout(c.L)).slice(1), ...p.argv] },
    logFile: join(c.L.logs, `node2-${name}.log`),
    pid: 0,
  };
}

/** A path of the node's mount namespace as the host reaches it (through a process living in it). */
const seenFrom = (pid: number, path: string): string => `/proc/${pid}/root${path}`;

async function ensureContainerd(c: StepContext, st: SecondNodeState): Promise<void> {
  if (running(st.processes.containerd)) return;
  const t = realClock.now();
  const n = secondNodeLayout(c.L).dir;
  const ctrd = c.L.containerd;
  // Written where the node's namespace shows them at the host node's paths (second-node.ts overlays).
  const own = (p: string): string => join(n, 'stack', p.slice(c.L.dir.length + 1));
  await Promise.all([ctrd.root, ctrd.state, c.L.cni.confDir].map((d) => mkdir(own(d), { recursive: true })));
  for (const f of containerdFiles(c.L, c.s.runDir, SECOND_NODE)) await writeFile(own(f.path), f.text);
  const path = `${c.bins.containerdBinDir}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`;
  const args = ['--config', ctrd.config];
  const bin = c.bins.containerd;
  const p = nodeProcess(c, 'containerd', { bin, args, argv: ['/usr/bin/env', `PATH=${path}`, bin, ...args] });
  st.processes.containerd = p;
  await startLocal(p);
  await save(c);
  await waitHealthy(
    'node2 containerd',
    p,
    () => containerdUp(seenFrom(p.pid, ctrd.socket)),
    c.readyTimeoutMs,
  );
  c.timings['node2: containerd'] = realClock.now() - t;
}

async function ensureKubelet(c: StepContext, st: SecondNodeState, api: Api): Promise<void> {
  if (running(st.processes.kubelet)) return;
  const t = realClock.now();
  const n = secondNodeLayout(c.L);
  const own = (p: string): string => join(n.dir, 'stack', p.slice(c.L.dir.length + 1));
  const k = c.L.kubelet;
  await Promise.all(
    [k.root, k.sysctls, k.podLogs, k.volumePlugins].map((d) => mkdir(own(d), { recursive: true })),
  );
  for (const [key, value] of Object.entries(KUBELET_TUNABLES)) {
    await writeFile(own(shieldFile(k.sysctls, key)), `${value}\n`);
  }
  const ca = certPaths(c.L.controlPlane).ca;
  const certs = await ensureKubeletCerts(n.pki, ca, SECOND_NODE);
  await mkdir(n.kubeconfigs, { recursive: true, mode: 0o700 });
  const kubeconfig = join(n.kubeconfigs, 'kubelet.kubeconfig');
  await writeFile(kubeconfig, componentKubeconfig(c.s.server, ca.cert, certs.kubeletClient), { mode: 0o600 });
  await writeFile(
    own(k.config),
    kubeletConfig({
      caFile: ca.cert,
      tlsCert: certs.kubeletServing.cert,
      tlsKey: certs.kubeletServing.key,
      containerdSocket: c.L.containerd.socket,
      podLogsDir: k.podLogs,
      volumePluginDir: k.volumePlugins,
      healthzPort: st.ports.kubeletHealthz,
      port: c.s.ports.kubelet,
      node: SECOND_NODE,
    }),
  );
  const args = kubeletArgs(k.config, kubeconfig, k.root, SECOND_NODE);
  const [cmd, wrapped] = kubeletCommand(c.bins.kubelet, args, k.sysctls);
  const p = nodeProcess(c, 'kubelet', { bin: c.bins.kubelet, args, argv: [cmd, ...wrapped] });
  st.processes.kubelet = p;
  await startLocal(p);
  await save(c);
  const url = `http://${SECOND_NODE.healthzAddress}:${st.ports.kubeletHealthz}/healthz`;
  await waitHealthy('node2 kubelet', p, () => healthz(url), c.readyTimeoutMs);
  const since = Date.now();
  await waitHealthy(
    `node ${SECOND_NODE.name} Ready`,
    p,
    () => nodeReady(api, since, SECOND_NODE.name),
    c.readyTimeoutMs,
  );
  c.timings['node2: kubelet and node Ready'] = realClock.now() - t;
}

async function ensureKubeProxy(c: StepContext, st: SecondNodeState): Promise<void> {
  if (running(st.processes.kubeProxy)) return;
  const config = join(secondNodeLayout(c.L).dir, 'kube-proxy.yaml');
  await writeFile(
    config,
    kubeProxyConfig({
      // kube-proxy's identity is not the node's: the host node's kubeconfig serves both.
      kubeconfig: join(c.L.kubeconfigs, 'kube-proxy.kubeconfig'),
      healthzPort: st.ports.proxyHealthz,
      metricsPort: st.ports.proxyMetrics,
      node: SECOND_NODE,
    }),
  );
  const args = kubeProxyArgs(config);
  const p = nodeProcess(c, 'kube-proxy', { bin: c.bins.kubeProxy, args, argv: [c.bins.kubeProxy, ...args] });
  st.processes.kubeProxy = p;
  await startLocal(p);
  await save(c);
  const url = `http://${SECOND_NODE.healthzAddress}:${st.ports.proxyHealthz}/healthz`;
  await waitHealthy('node2 kube-proxy', p, () => healthz(url), c.readyTimeoutMs);
}

async function newState(): Promise<SecondNodeState> {
  const [kubeletHealthz = 0, proxyHealthz = 0, proxyMetrics = 0] = await freePorts(3);
  return { processes: {}, ports: { kubeletHealthz, proxyHealthz, proxyMetrics }, namespaces: false };
}

export async function ensureSecondNode(c: StepContext, api: Api, images: ImageArchives): Promise<void> {
  const st = (c.s.secondNode ??= await newState());
  if (!st.namespaces) {
    const t = realClock.now();
    await createNamespaces(c);
    st.namespaces = true;
    await save(c);
    c.timings['node2: namespaces'] = realClock.now() - t;
  }
  await ensureContainerd(c, st);
  await importImages(c, images, inNode(secondNodeLayout(c.L)));
  await ensureKubelet(c, st, api);
  await ensureKubeProxy(c, st);
}
