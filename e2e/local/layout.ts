/**
 * Where everything of the local cluster lives: one stack dir (default
 * `${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/local`) holding the control plane's own testenv dir, the node's
 * certificates and kubeconfigs, containerd's root/state/socket, the CNI config, the kubelet root (a shared
 * bind mount), the PV directories and every log. Network constants are here too: a bridge of ours with a
 * private range used nowhere else, the node IP on it, and the Service range kube-apiserver is given.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const NODE_NAME = 'local';

export const NETWORK = {
  bridge: 'kvts0',
  /** Pods get addresses from this range on the bridge, and nothing else uses it. */
  podCidr: '10.247.0.0/24',
  nodeIp: '10.247.0.1',
  prefix: 24,
  rangeStart: '10.247.0.10',
  rangeEnd: '10.247.0.250',
  /** Pods also get an IPv6 address of this range: on the bridge only (no address of the node's, no route). */
  podCidr6: 'fd00:10:247::/64',
  /** kube-apiserver's --service-cluster-ip-range (testenv/apiserver-args.ts). */
  serviceCidr: '10.96.0.0/16',
} as const;

/**
 * What differs between the nodes of the stack. Node `local` is the host itself; a second node (`up --nodes 2`)
 * runs its containerd, kubelet and kube-proxy in network and mount namespaces of ours (second-node.ts), with its
 * own address on the bridge and its own Pod range behind it, reached through that address.
 */
export interface NodeSpec {
  name: string;
  ip: string;
  podCidr: string;
  rangeStart: string;
  rangeEnd: string;
  podCidr6: string;
  /** The address a Pod sends Service traffic to: the node IP, or the second node's own Pod bridge address. */
  gateway: string;
  /** Where the kubelet's healthz listens (loopback of the second node is not the host's). */
  healthzAddress: string;
  /** The kubelet's cgroupRoot: two kubelets cannot both own /kubepods. */
  cgroupRoot?: string;
}

export const FIRST_NODE: NodeSpec = {
  name: NODE_NAME,
  ip: NETWORK.nodeIp,
  podCidr: NETWORK.podCidr,
  rangeStart: NETWORK.rangeStart,
  rangeEnd: NETWORK.rangeEnd,
  podCidr6: NETWORK.podCidr6,
  gateway: NETWORK.nodeIp,
  healthzAddress: '127.0.0.1',
};

export const SECOND_NODE: NodeSpec = {
  name: 'local-2',
  ip: '10.247.0.2',
  podCidr: '10.247.1.0/24',
  rangeStart: '10.247.1.10',
  rangeEnd: '10.247.1.250',
  podCidr6: 'fd00:10:247:1::/64',
  gateway: '10.247.1.1',
  healthzAddress: '10.247.0.2',
  cgroupRoot: '/kvts-local-2',
};

/** The other node's Pod range and the hop to it, for a node's Pod routes. */
export function peerRoute(node: NodeSpec): { dst: string; gw: string } {
  return node.name === FIRST_NODE.name
    ? { dst: SECOND_NODE.podCidr, gw: SECOND_NODE.ip }
    : { dst: FIRST_NODE.podCidr, gw: SECOND_NODE.gateway };
}

/** Our iptables chains (filter table): forwarding off the bridge dropped, untranslated Service IPs rejected. */
export const CHAINS = { forward: 'KVTS-FORWARD', output: 'KVTS-OUTPUT' } as const;

export const IMAGES = {
  virt: 'localhost/kubevirt-ts:local',
  pause: 'localhost/kubevirt-ts-pause:local',
  guestDisk: 'localhost/kubevirt-ts-guest-disk:local',
  guestIso: 'localhost/kubevirt-ts-guest-iso:local',
  guestKernel: 'localhost/kubevirt-ts-guest-kernel:local',
} as const;

export interface Layout {
  dir: string;
  state: string;
  controlPlane: string;
  pki: string;
  kubeconfigs: string;
  logs: string;
  containerd: {
    dir: string;
    config: string;
    root: string;
    state: string;
    socket: string;
    /** containerd's own dir for the opt plugin, image verifiers and the like (not /opt, /etc). */
    var: string;
    /** The CDI spec dir containerd reads (cdi_spec_dirs): a DRA driver writes its claims' specs here. */
    cdi: string;
  };
  cni: { confDir: string };
  kubelet: { root: string; config: string; sysctls: string; podLogs: string; volumePlugins: string };
  kubeProxy: { config: string };
  kcm: { certDir: string };
  scheduler: { certDir: string };
  pv: string;
}

/**
 * Where containerd's CRI plugin mounts Pods' image volumes (`<state>/io.containerd.grpc.v1.cri/image-volumes`):
 * a shared bind mount the handler sees (HostToContainer) to find a hotplugged containerDisk's image.
 */
export function imageVolumesDir(L: Pick<Layout, 'containerd'>): string {
  return join(L.containerd.state, 'io.containerd.grpc.v1.cri', 'image-volumes');
}

export function defaultStackDir(): string {
  return join(process.env['KV_CACHE_DIR'] ?? join(homedir(), '.cache', 'kubevirt-ts'), 'local');
}

export function layout(dir: string = defaultStackDir()): Layout {
  const ctr = join(dir, 'containerd');
  const kubelet = join(dir, 'kubelet');
  return {
    dir,
    state: join(dir, 'state.json'),
    controlPlane: join(dir, 'controlplane'),
    pki: join(dir, 'pki'),
    kubeconfigs: join(dir, 'kubeconfigs'),
    logs: join(dir, 'logs'),
    containerd: {
      dir: ctr,
      config: join(ctr, 'config.toml'),
      root: join(ctr, 'root'),
      state: join(ctr, 'state'),
      socket: join(ctr, 'containerd.sock'),
      var: join(ctr, 'var'),
      cdi: join(ctr, 'var', 'cdi'),
    },
    cni: { confDir: join(dir, 'cni', 'net.d') },
    kubelet: {
      root: join(kubelet, 'root'),
      config: join(kubelet, 'config.yaml'),
      sysctls: join(kubelet, 'sysctls'),
      podLogs: join(kubelet, 'pod-logs'),
      volumePlugins: join(kubelet, 'volume-plugins'),
    },
    kubeProxy: { config: join(dir, 'kube-proxy.yaml') },
    kcm: { certDir: join(dir, 'kcm') },
    scheduler: { certDir: join(dir, 'scheduler') },
    pv: join(dir, 'pv'),
  };
}
