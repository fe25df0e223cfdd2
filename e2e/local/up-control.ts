/**
 * The control plane of the local cluster: the testenv's etcd + kube-apiserver (on the node's bridge address, where
 * Pods reach it through the `kubernetes` Service, with the kubelet client flags, the Node authorizer, InternalIP
 * first, and the ServiceAccount admission plugin back on since kube-controller-manager now makes the accounts),
 * then kube-controller-manager and kube-scheduler.
 * Each part is started only when it does not already run.
 */
import { realClock } from '../../lib/kernel/clock.ts';
import { certPaths, ensureCerts } from '../../testenv/certs.ts';
import { attachControlPlane, startControlPlane } from '../../testenv/controlplane.ts';
import { readState, statePath } from '../../testenv/state.ts';
import { kcmArgs, schedulerArgs } from './components.ts';
import { save, type StepContext } from './context.ts';
import { writeComponentKubeconfigs, type ComponentKubeconfigs } from './kubeconfigs.ts';
import { join } from 'node:path';
import { ensureNodeCerts, type NodeCerts } from './pki.ts';
import { healthz } from './probes.ts';
import { running, startLocal, waitHealthy } from './procs.ts';
import type { LocalProcess } from './state.ts';
import { NETWORK } from './layout.ts';

function apiServerArgsFor(certs: NodeCerts, ca: string): (defaults: string[]) => string[] {
  return (defaults) => [
    ...defaults.filter((a) => !a.startsWith('--disable-admission-plugins=')),
    `--kubelet-client-certificate=${certs.apiserverKubeletClient.cert}`,
    `--kubelet-client-key=${certs.apiserverKubeletClient.key}`,
    `--kubelet-certificate-authority=${ca}`,
    '--kubelet-preferred-address-types=InternalIP,Hostname',
  ];
}

export interface ControlPlaneParts {
  nodeCerts: NodeCerts;
  kubeconfigs: ComponentKubeconfigs;
}

async function apiServerUp(c: StepContext, certs: NodeCerts, ca: string): Promise<void> {
  const cp = await attachControlPlane(statePath(c.L.controlPlane), c.log).catch(() => undefined);
  const st = await cp?.status();
  // A kube-apiserver an older checkout started without today's admission configuration is started again.
  const args = await readState(statePath(c.L.controlPlane)).then(
    (s) => s.apiserver.args,
    (): readonly string[] => [],
  );
  const current =
    args.some((a) => a.startsWith('--admission-control-config-file=')) &&
    args.includes(`--bind-address=${NETWORK.nodeIp}`);
  if (st?.etcd.healthy === true && st.apiserver.ready && current) return;
  if (st?.etcd.running === true || st?.apiserver.running === true) await cp?.stop();
  const t = realClock.now();
  const started = await startControlPlane({
    dir: c.L.controlPlane,
    log: c.log,
    detached: true,
    binaries: { etcd: c.bins.etcd, kubeApiServer: c.bins.kubeApiServer },
    apiServerArgs: apiServerArgsFor(certs, ca),
    address: NETWORK.nodeIp,
    readyTimeoutMs: c.readyTimeoutMs,
  });
  c.timings['start: etcd + kube-apiserver'] = realClock.now() - t;
  c.s.kubeconfig = started.kubeconfigPath;
  c.s.server = started.server;
  await save(c);
}

/** Certificates, etcd + kube-apiserver, and the components' kubeconfigs. */
export async function ensureApiServer(c: StepContext): Promise<ControlPlaneParts> {
  const t = realClock.now();
  await ensureCerts(c.L.controlPlane, [NETWORK.nodeIp]);
  const ca = certPaths(c.L.controlPlane).ca;
  const nodeCerts = await ensureNodeCerts(c.L.pki, ca);
  c.timings['certificates'] = realClock.now() - t;
  await apiServerUp(c, nodeCerts, ca.cert);
  const kubeconfigs = await writeComponentKubeconfigs(c.L.kubeconfigs, c.s.server, ca.cert, {
    kubelet: nodeCerts.kubeletClient,
    controllerManager: nodeCerts.controllerManager,
    scheduler: nodeCerts.scheduler,
    kubeProxy: nodeCerts.kubeProxy,
  });
  return { nodeCerts, kubeconfigs };
}

async function ensureOne(
  c: StepContext,
  name: 'kubeControllerManager' | 'kubeScheduler',
  p: LocalProcess,
): Promise<void> {
  if (running(c.s.processes[name])) return;
  const t = realClock.now();
  c.s.processes[name] = p;
  await startLocal(p);
  await save(c);
  const url = `https://127.0.0.1:${name === 'kubeControllerManager' ? c.s.ports.kcm : c.s.ports.scheduler}/healthz`;
  await waitHealthy(name, p, () => healthz(url), c.readyTimeoutMs);
  c.timings[`start: ${name === 'kubeControllerManager' ? 'kube-controller-manager' : 'kube-scheduler'}`] =
    realClock.now() - t;
}

export async function ensureControllers(c: StepContext, parts: ControlPlaneParts): Promise<void> {
  const cp = certPaths(c.L.controlPlane);
  const kcm: LocalProcess = {
    bin: c.bins.kubeControllerManager,
    args: kcmArgs({
      kubeconfig: parts.kubeconfigs.controllerManager,
      caCert: cp.ca.cert,
      caKey: cp.ca.key,
      serviceAccountKey: cp.serviceAccount.privateKey,
      certDir: c.L.kcm.certDir,
      flexVolumeDir: join(c.L.kubelet.volumePlugins, 'volume', 'exec'),
      port: c.s.ports.kcm,
    }),
    logFile: join(c.L.logs, 'kube-controller-manager.log'),
    pid: 0,
  };
  const scheduler: LocalProcess = {
    bin: c.bins.kubeScheduler,
    args: schedulerArgs({
      kubeconfig: parts.kubeconfigs.scheduler,
      certDir: c.L.scheduler.certDir,
      port: c.s.ports.scheduler,
    }),
    logFile: join(c.L.logs, 'kube-scheduler.log'),
    pid: 0,
  };
  await Promise.all([ensureOne(c, 'kubeControllerManager', kcm), ensureOne(c, 'kubeScheduler', scheduler)]);
}
