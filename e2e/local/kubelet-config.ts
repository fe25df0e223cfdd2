/**
 * The kubelet of node `local`: its KubeletConfiguration, its flags, and the mount-namespace wrapper it runs
 * in. Every setting here was a hard failure or a host change on this kind of machine without it: cgroup v1
 * allowed, cgroupfs, protectKernelDefaults with the kernel tunables shielded (see sysctlShield), no iptables
 * utility chains, maxOpenFiles under the hard nofile limit, webhook authn/authz with x509 client certs of the
 * cluster CA, no read-only port, healthz on loopback, the node IP on our bridge, pod logs and volume plugins
 * moved off /var/log and /usr/libexec.
 */
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FIRST_NODE, type NodeSpec } from './layout.ts';

export interface KubeletConfigOptions {
  caFile: string;
  tlsCert: string;
  tlsKey: string;
  containerdSocket: string;
  podLogsDir: string;
  volumePluginDir: string;
  healthzPort: number;
  port: number;
  node?: NodeSpec;
}

export function kubeletConfig(o: KubeletConfigOptions): string {
  const node = o.node ?? FIRST_NODE;
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    containerRuntimeEndpoint: `unix://${o.containerdSocket}`,
    address: node.ip,
    port: o.port,
    readOnlyPort: 0,
    healthzBindAddress: node.healthzAddress,
    ...(node.cgroupRoot !== undefined && { cgroupRoot: node.cgroupRoot }),
    healthzPort: o.healthzPort,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true, cacheTTL: '30s' },
      x509: { clientCAFile: o.caFile },
    },
    authorization: { mode: 'Webhook' },
    tlsCertFile: o.tlsCert,
    tlsPrivateKeyFile: o.tlsKey,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    protectKernelDefaults: true,
    makeIPTablesUtilChains: false,
    maxOpenFiles: 10_000,
    podLogsDir: o.podLogsDir,
    volumePluginDir: o.volumePluginDir,
    resolvConf: '',
    clusterDomain: 'cluster.local',
    failSwapOn: false,
    registerNode: true,
    // One node for development: do not evict for a fuller disk than the defaults allow, never GC our images.
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '2%', 'imagefs.available': '2%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    imageMinimumGCAge: '876000h',
    serializeImagePulls: false,
    syncFrequency: '10s',
    fileCheckFrequency: '20s',
    nodeStatusUpdateFrequency: '10s',
  });
}

export function kubeletArgs(
  config: string,
  kubeconfig: string,
  rootDir: string,
  node: NodeSpec = FIRST_NODE,
): string[] {
  return [
    `--config=${config}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${rootDir}`,
    `--node-ip=${node.ip}`,
    `--hostname-override=${node.name}`,
    '--v=1',
  ];
}

/**
 * The kernel tunables the kubelet sets (pkg/kubelet/cm setupKernelTunables) with the values it wants.
 * With protectKernelDefaults it only reads them and refuses to start on a mismatch; in its own mount
 * namespace these /proc/sys files are bind-mounted over by plain files holding exactly these values, so
 * it reads what it wants and the host's values are never touched.
 */
export const KUBELET_TUNABLES: Readonly<Record<string, string>> = {
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
};

export function shieldFile(dir: string, key: string): string {
  return join(dir, key.replaceAll('/', '.'));
}

/**
 * The shell run by `unshare -m --propagation unchanged` before it execs the kubelet: /proc is made private
 * in the new namespace (so nothing below propagates to the host), then each tunable is shadowed.
 * `-n` keeps mount(8) from writing /run/mount/utab, whose lock the host's own mounts share.
 * Positional parameters: $@ is the kubelet command line.
 */
function shieldScript(dir: string): string {
  const lines = ['set -e', 'mount -n --make-private /proc'];
  for (const key of Object.keys(KUBELET_TUNABLES)) {
    lines.push(`mount -n --bind ${shieldFile(dir, key)} /proc/sys/${key}`);
  }
  lines.push('exec "$@"');
  return lines.join('\n');
}

/** argv for spawn: unshare, then sh with the script, then the kubelet and its flags. */
export function kubeletCommand(kubelet: string, args: string[], sysctlDir: string): [string, string[]] {
  return [
    'unshare',
    [
      '-m',
      '--propagation',
      'unchanged',
      '--',
      '/bin/sh',
      '-c',
      shieldScript(sysctlDir),
      'kubelet',
      kubelet,
      ...args,
    ],
  ];
}
