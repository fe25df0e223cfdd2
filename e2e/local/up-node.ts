/**
 * The node: containerd 2 (our config, our socket, the v2 shim first on its PATH) with the local images
 * imported into its k8s.io namespace, the kubelet in its own mount namespace, and kube-proxy. Each part is
 * started only when it does not already run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { certPaths } from '../testenv/certs.ts';
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
import { NODE_NAME } from './layout.ts';
import type { ControlPlaneParts } from './up-control.ts';
import { containerdUp, healthz } from './probes.ts';
import { running, startLocal, waitHealthy } from './procs.ts';

export async function ensureContainerd(c: StepContext): Promise<void> {
  if (running(c.s.processes.containerd)) return;
  const t = realClock.now();
  const ctrd = c.L.containerd;
  await Promise.all(
    [ctrd.root, ctrd.state, c.L.cni.confDir, c.s.runDir].map((d) => mkdir(d, { recursive: true })),
  );
  await writeFile(
    ctrd.config,
    containerdConfig({
      root: ctrd.root,
      state: ctrd.state,
      socket: ctrd.socket,
      runDir: c.s.runDir,
      cniConfDir: c.L.cni.confDir,
      cniBinDir: CNI_BIN_DIR,
      varDir: join(ctrd.dir, 'var'),
    }),
  );
  await writeFile(join(c.L.cni.confDir, '10-kvts.conflist'), cniConflist(join(c.L.dir, 'cni', 'ipam')));
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
  await waitHealthy('containerd', p, () => containerdUp(c.bins.ctr, ctrd.socket), c.readyTimeoutMs);
  c.timings['start: containerd'] = realClock.now() - t;
}

/** ctr images import of each archive into k8s.io; returns the image names containerd then lists. */
export async function importImages(c: StepContext, images: ImageArchives): Promise<string[]> {
  const t = realClock.now();
  const ctr = (args: string[]): Promise<string> =>
    run(c.bins.ctr, ['--address', c.L.containerd.socket, '--namespace', 'k8s.io', ...args]);
  const archives = [images.pause, images.guestDisk, images.guestKernel, images.virt].filter(
    (a): a is string => a !== undefined,
  );
  for (const a of archives) await ctr(['images', 'import', '--local', a]);
  const names = (await ctr(['images', 'ls', '-q']))
    .split('\n')
    .filter((n) => n !== '' && !n.startsWith('sha256:'));
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
  status?: { conditions?: { type?: string; status?: string }[] };
  spec?: { taints?: { key?: string }[] };
}

export async function nodeReady(api: Api): Promise<boolean> {
  const node = await api.find<NodeDoc>(`/api/v1/nodes/${NODE_NAME}`);
  const ready = node?.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True';
  const tainted = (node?.spec?.taints ?? []).some((x) => x.key === 'node.kubernetes.io/not-ready');
  return ready && !tainted;
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
  await waitHealthy('node local Ready', p, () => nodeReady(api), c.readyTimeoutMs);
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
