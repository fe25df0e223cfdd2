/**
 * handlerDaemonSet(cfg): the virt-handler DaemonSet (KubeVirt's components/daemonsets.go NewHandlerDaemonSet and
 * RenderPrHelperContainer, with Deckhouse's host network and ports from templates/kubevirt/kubevirt.yaml). An
 * init container writes the node-labeller's host facts; `virt handler` runs privileged in the host's PID
 * namespace with the kubelet's dir mounted Bidirectional (it bind-mounts hotplug disks into launcher Pods and
 * reads CSI block devices below it). pr-helper runs beside it when PersistentReservation is on, and a holder
 * keeps the launcher image on the node when it is not the handler's own. Both health ports serve TLS with the
 * handler's server certificate; on the host network the handler's servers and pr-helper's bind the node's
 * address.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { CA_BUNDLE_DIR, CERT_DIRS, CONTAINERS, HOST_PATHS, PORTS } from '../layout.ts';
import { metadataFor } from '../meta.ts';
import { CONFIG_MAPS, SECRETS, SERVICE_ACCOUNT, WORKLOAD } from '../names.ts';
import {
  CA_BUNDLE_FILE,
  METRICS_PORT,
  RESTRICTED,
  configMapAt,
  hostPathAt,
  metricsTlsFlags,
  probes,
  requests,
  roleArgs,
  secretAt,
  tcpPort,
  tlsFiles,
  type ContainerSpec,
  type EnvVar,
} from './container.ts';
import { podTemplate, selectorOf, type PodTemplate, type Selector } from './workload.ts';

export type DaemonSet = {
  apiVersion: 'apps/v1';
  kind: 'DaemonSet';
  metadata: Rendered['metadata'];
  spec: {
    selector: Selector;
    updateStrategy: { type: 'RollingUpdate'; rollingUpdate: { maxUnavailable: number } };
    template: PodTemplate;
  };
};

/** On the host network, the node's address (the Pod's status.hostIP) in the handler's and pr-helper's env. */
const NODE_IP = 'NODE_IP';

/** The feature gate that adds pr-helper. */
const PERSISTENT_RESERVATION = 'PersistentReservation';
/** The console server's port name (Deckhouse's). */
const CONSOLE_PORT = 'console';
/** pr-helper's health port: `metrics` names the handler's. */
const PR_HELPER_METRICS_PORT = 'pr-metrics';
const PRIVILEGED = { privileged: true };
/**
 * The Pod shares the node's PID namespace, so tini (the image's entrypoint) is not PID 1: it registers as the
 * child subreaper instead, and still reaps what its role leaves (libvirt's probes in the node-labeller).
 */
const SUBREAPER: EnvVar = { name: 'TINI_SUBREAPER', value: '1' };

function nodeLabeller(cfg: InstallConfig): ContainerSpec {
  return {
    name: CONTAINERS.nodeLabeller,
    image: cfg.launcherImage,
    args: roleArgs(['launcher', 'node-labeller'], {
      '--output': HOST_PATHS.nodeLabeller,
      '--emulation': cfg.useEmulation ? 'on' : 'auto',
    }),
    env: [SUBREAPER],
    mounts: [hostPathAt('node-labeller', HOST_PATHS.nodeLabeller, { create: true })],
    securityContext: PRIVILEGED,
  };
}

const fieldEnv = (name: string, fieldPath: string): EnvVar => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

/**
 * On the host network a server bound to every interface listens on all of the node's; there the handler's
 * and pr-helper's servers take the node's address (the Pod's IP, so the probes still reach them) from NODE_IP.
 */
const POD_IP = 'POD_IP';

function nodeAddress(cfg: InstallConfig): { env: EnvVar[]; address?: string } {
  if (!cfg.handler.hostNetwork) return { env: [] };
  return { env: [fieldEnv(NODE_IP, 'status.hostIP')], address: `$(${NODE_IP})` };
}

function handler(cfg: InstallConfig): ContainerSpec {
  const server = tlsFiles(CERT_DIRS.handlerServer);
  const client = tlsFiles(CERT_DIRS.handlerMigrationClient);
  const node = nodeAddress(cfg);
  const args = roleArgs(['handler'], {
    '--port': cfg.handler.healthPort,
    ...(node.address !== undefined && { '--health-host': node.address }),
    ...metricsTlsFlags(CERT_DIRS.handlerServer),
    '--console-server-port': cfg.handler.consoleServerPort,
    ...(node.address !== undefined && { '--console-server-address': node.address }),
    '--tls-cert-file': server.cert,
    '--tls-key-file': server.key,
    '--client-ca-file': CA_BUNDLE_FILE,
    '--client-cert-file': client.cert,
    '--client-key-file': client.key,
    // The target's proxies listen on the Pod's address (KubeVirt's migration IP): the node's on the host network.
    '--migration-address': node.address ?? `$(${POD_IP})`,
    '--kubelet-pods-dir': HOST_PATHS.kubeletPods,
    '--node-labeller-dir': HOST_PATHS.nodeLabeller,
    '--device-plugins-dir': HOST_PATHS.devicePlugins,
    '--namespace': cfg.namespace,
    '-v': cfg.verbosity['virt-handler'],
  });
  return {
    name: CONTAINERS.handler,
    args,
    env: [
      fieldEnv('NODE_NAME', 'spec.nodeName'),
      ...node.env,
      ...(node.address === undefined ? [fieldEnv(POD_IP, 'status.podIP')] : []),
      SUBREAPER,
    ],
    ports: [
      tcpPort(METRICS_PORT, cfg.handler.healthPort),
      tcpPort(CONSOLE_PORT, cfg.handler.consoleServerPort),
    ],
    mounts: [
      secretAt(SECRETS.handlerServer, CERT_DIRS.handlerServer),
      secretAt(SECRETS.handlerClient, CERT_DIRS.handlerMigrationClient),
      configMapAt(CONFIG_MAPS.caBundle, CA_BUNDLE_DIR),
      hostPathAt('kubelet', HOST_PATHS.kubelet, { propagation: 'Bidirectional' }),
      hostPathAt('node-labeller', HOST_PATHS.nodeLabeller, { create: true }),
      hostPathAt('virt-share-dir', HOST_PATHS.kubevirtRun, { create: true }),
      hostPathAt('image-volumes', HOST_PATHS.containerdImageVolumes, {
        propagation: 'HostToContainer',
        create: true,
      }),
    ],
    ...probes(METRICS_PORT, '/readyz'),
    resources: requests('10m', '325Mi'),
    securityContext: { ...PRIVILEGED, seLinuxOptions: { level: 's0' } },
  };
}

/** qemu-pr-helper under `virt pr-helper`, as root with the host's devices and multipath configuration. */
function prHelper(cfg: InstallConfig): ContainerSpec {
  const node = nodeAddress(cfg);
  return {
    name: CONTAINERS.prHelper,
    args: roleArgs(['pr-helper'], {
      '--socket': `${HOST_PATHS.prHelperSocketDir}/pr-helper.sock`,
      '--health-port': PORTS.prHelperHealth,
      ...(node.address !== undefined && { '--health-host': node.address }),
      ...metricsTlsFlags(CERT_DIRS.handlerServer),
      '-v': cfg.verbosity['virt-handler'],
    }),
    env: [...node.env, SUBREAPER],
    ports: [tcpPort(PR_HELPER_METRICS_PORT, PORTS.prHelperHealth)],
    mounts: [
      secretAt(SECRETS.handlerServer, CERT_DIRS.handlerServer),
      hostPathAt('pr-helper-socket', HOST_PATHS.prHelperSocketDir, {
        propagation: 'Bidirectional',
        create: true,
      }),
      hostPathAt('dev-dir', '/dev', { propagation: 'HostToContainer' }),
      hostPathAt('etc-multipath', '/etc/multipath', { propagation: 'Bidirectional', create: true }),
    ],
    ...probes(PR_HELPER_METRICS_PORT, '/readyz'),
    securityContext: { ...PRIVILEGED, runAsUser: 0 },
  };
}

/**
 * Keeps the launcher image pulled on the node (KubeVirt's, for a private launcher image): tini as PID 1 so
 * SIGTERM ends the sleep at once.
 */
function imageHolder(cfg: InstallConfig): ContainerSpec {
  return {
    name: CONTAINERS.imageHolder,
    image: cfg.launcherImage,
    command: ['/usr/bin/tini', '-s', '--', 'sleep', 'infinity'],
    resources: { requests: { cpu: '1m', memory: '8Mi' }, limits: { cpu: '100m', memory: '20Mi' } },
    securityContext: { ...RESTRICTED, readOnlyRootFilesystem: true },
  };
}

export function handlerDaemonSet(cfg: InstallConfig): DaemonSet {
  const hostNetwork = cfg.handler.hostNetwork;
  const template = podTemplate(cfg, {
    component: 'virt-handler',
    serviceAccount: SERVICE_ACCOUNT['virt-handler'],
    placement: cfg.workloadsPlacement,
    spread: false,
    initContainers: [nodeLabeller(cfg)],
    containers: [
      handler(cfg),
      ...(cfg.featureGates.includes(PERSISTENT_RESERVATION) ? [prHelper(cfg)] : []),
      ...(cfg.launcherImage !== cfg.image ? [imageHolder(cfg)] : []),
    ],
    spec: {
      hostPID: true,
      ...(hostNetwork && { hostNetwork, dnsPolicy: 'ClusterFirstWithHostNet' as const }),
    },
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: metadataFor(cfg, { name: WORKLOAD['virt-handler'], component: 'virt-handler' }),
    spec: {
      selector: selectorOf('virt-handler'),
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template,
    },
  };
}
