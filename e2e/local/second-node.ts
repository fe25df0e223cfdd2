/**
 * The second node of the local cluster (`up --nodes 2`), as paths and commands: its containerd, kubelet and
 * kube-proxy run in a network namespace and a mount namespace of ours, kept by bind mounts of their nsfs files
 * under `<stack>/node2/ns` (a private mount, as nsfs binds need).
 *
 * Network: a veth pair, `kvts0-n2` on the host's bridge and `eth0` in the namespace with the node's address;
 * inside, the node's own Pod bridge (named as the host's, the CNI config is the same) holding the address its
 * Pods send Service traffic to, forwarding on (the namespace's own sysctl; the host's is never touched), and
 * the Service range on eth0 for host-network Pods. The host routes the node's Pod range to the node's address.
 *
 * Mounts: the namespace is a slave of the host's (nothing made in it shows on the host). Every path that is the
 * node's own is, once the host's mounts there are detached in it, overmounted by a dir under `<stack>/node2` at
 * the same path, so both nodes run the same
 * command lines and the handler DaemonSet's hostPaths need no second version: the kubelet dir (its root
 * then a shared mount, as on the host), containerd's dir (its image-volumes dir shared), the CNI config and
 * leases, the handler's share and node-labeller dirs, the shim dir under /run, and the paths outside the stack
 * that the kubelet, libcni and containerd write to (/var/lib/kubelet, /var/lib/cni, /run/containerd).
 */
import { join } from 'node:path';
import type { Layout } from './layout.ts';
import { imageVolumesDir, NETWORK, SECOND_NODE } from './layout.ts';

export const HOST_VETH = 'kvts0-n2';
const NODE_VETH = 'eth0';

export interface SecondNodeLayout {
  dir: string;
  /** A private bind mount holding the namespace files. */
  nsDir: string;
  mntNs: string;
  netNs: string;
  pki: string;
  kubeconfigs: string;
}

export function secondNodeLayout(L: Pick<Layout, 'dir'>): SecondNodeLayout {
  const dir = join(L.dir, 'node2');
  const nsDir = join(dir, 'ns');
  return {
    dir,
    nsDir,
    mntNs: join(nsDir, 'mnt'),
    netNs: join(nsDir, 'net'),
    pki: join(dir, 'pki'),
    kubeconfigs: join(dir, 'kubeconfigs'),
  };
}

/** Paths outside the stack dir the node writes to; each is overmounted in its namespace. */
const NODE_OUTSIDE_PATHS = ['/var/lib/kubelet', '/var/lib/cni', '/run/containerd'] as const;

/** [the node's own dir, the path it is mounted over in the node's namespace]. */
export function overlays(L: Layout, runDir: string): [string, string][] {
  const n = secondNodeLayout(L).dir;
  const inStack = ['kubelet', 'containerd', 'cni', 'node-labeller', 'run-kubevirt'].map(
    (d): [string, string] => [join(n, 'stack', d), join(L.dir, d)],
  );
  const outside = NODE_OUTSIDE_PATHS.map((p): [string, string] => [
    join(n, 'host', p.slice(1).replaceAll('/', '-')),
    p,
  ]);
  return [...inStack, [join(n, 'stack', 'run'), runDir], ...outside];
}

/** Dirs that are shared mounts in the node's namespace, as on the host (mounts below reach the Pods). */
export function sharedInNode(L: Layout): string[] {
  return [L.kubelet.root, imageVolumesDir(L)];
}

/** nsenter argv prefix that runs a command in the node's namespaces. */
export function inNode(n: SecondNodeLayout): string[] {
  return ['nsenter', `--mount=${n.mntNs}`, `--net=${n.netNs}`, '--'];
}

/**
 * The shell run in the node's namespaces once they exist: loopback, the veth (its host end moved to the netns
 * of hostPid), the node's addresses and routes, forwarding, then the overlays and shared mounts. Idempotent
 * only as a whole on fresh namespaces.
 */
export function setupScript(L: Layout, runDir: string, hostPid: number): string {
  const node = SECOND_NODE;
  const podPrefix = node.podCidr.split('/')[1] ?? '24';
  const lines = [
    'set -e',
    'ip link set lo up',
    `ip link add ${NODE_VETH} type veth peer name ${HOST_VETH} netns ${hostPid}`,
    `ip addr add ${node.ip}/${NETWORK.prefix} dev ${NODE_VETH}`,
    `ip link set ${NODE_VETH} up`,
    `ip link add ${NETWORK.bridge} type bridge`,
    `ip addr add ${node.gateway}/${podPrefix} dev ${NETWORK.bridge}`,
    `ip link set ${NETWORK.bridge} up`,
    `ip route add ${NETWORK.serviceCidr} dev ${NODE_VETH} src ${node.ip}`,
    'sysctl -q -w net.ipv4.ip_forward=1',
  ];
  for (const [from, to] of overlays(L, runDir)) {
    // The host's mounts at and below the path (copies here) go first: containerd reads the first mount it finds
    // at a path for its propagation, and the shared one must be ours.
    const below = `'^${to.replaceAll('.', '\\.')}(/|$)'`;
    lines.push(`findmnt -rn -o TARGET | grep -E ${below} | sort -r | xargs -r -n1 umount -n -l`);
    lines.push(`mount -n --bind ${from} ${to}`);
  }
  for (const d of sharedInNode(L)) {
    lines.push(`mkdir -p ${d}`, `mount -n --bind ${d} ${d}`, `mount -n --make-shared ${d}`);
  }
  return lines.join('\n');
}

/** The cgroup dir of the node's kubelet (cgroupRoot) in one v1 hierarchy. */
export function nodeCgroupDir(hierarchy: string): string {
  return join('/sys/fs/cgroup', hierarchy, SECOND_NODE.cgroupRoot ?? '');
}
