/**
 * Flags and config of kube-controller-manager, kube-scheduler and kube-proxy for the local cluster.
 * - kcm: every default controller (garbage collector, service accounts and their tokens signed with the
 *   testenv's service-account key, PV binder, node lifecycle, namespaces, workloads), one credential per
 *   controller, no node CIDR allocation (the CNI config owns the range), no leader election;
 * - scheduler: loopback only, no leader election;
 * - kube-proxy: iptables mode, and every setting that would otherwise write a host sysctl left off
 *   (conntrack sizing and timeouts zeroed, no localhost NodePorts, oomScoreAdj 0), NodePorts only on the
 *   bridge address.
 */
import { stringify } from 'yaml';
import { FIRST_NODE, NETWORK, type NodeSpec } from './layout.ts';

export interface KcmOptions {
  kubeconfig: string;
  caCert: string;
  caKey: string;
  serviceAccountKey: string;
  certDir: string;
  /** kcm probes flex volume plugins here (default /usr/libexec/kubernetes/kubelet-plugins/volume/exec). */
  flexVolumeDir: string;
  port: number;
}

/** What kcm and the scheduler share: their kubeconfig for everything, and a loopback-only serving port. */
function servingArgs(o: { kubeconfig: string; certDir: string; port: number }): string[] {
  return [
    `--kubeconfig=${o.kubeconfig}`,
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.port}`,
    `--cert-dir=${o.certDir}`,
  ];
}

export function kcmArgs(o: KcmOptions): string[] {
  return [
    ...servingArgs(o),
    `--flex-volume-plugin-dir=${o.flexVolumeDir}`,
    `--service-account-private-key-file=${o.serviceAccountKey}`,
    `--root-ca-file=${o.caCert}`,
    `--cluster-signing-cert-file=${o.caCert}`,
    `--cluster-signing-key-file=${o.caKey}`,
    '--use-service-account-credentials=true',
    '--controllers=*',
    '--allocate-node-cidrs=false',
    `--service-cluster-ip-range=${NETWORK.serviceCidr}`,
    '--leader-elect=false',
    '--node-monitor-grace-period=40s',
    '--profiling=false',
    '--v=1',
  ];
}

export interface SchedulerOptions {
  kubeconfig: string;
  certDir: string;
  port: number;
}

export function schedulerArgs(o: SchedulerOptions): string[] {
  return [...servingArgs(o), '--leader-elect=false', '--profiling=false', '--v=1'];
}

export interface KubeProxyOptions {
  kubeconfig: string;
  healthzPort: number;
  metricsPort: number;
  node?: NodeSpec;
}

export function kubeProxyConfig(o: KubeProxyOptions): string {
  const node = o.node ?? FIRST_NODE;
  return stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: o.kubeconfig },
    hostnameOverride: node.name,
    bindAddress: node.ip,
    healthzBindAddress: `${node.healthzAddress}:${o.healthzPort}`,
    metricsBindAddress: `${node.healthzAddress}:${o.metricsPort}`,
    mode: 'iptables',
    clusterCIDR: node.podCidr,
    nodePortAddresses: [`${node.ip}/32`],
    oomScoreAdj: 0,
    iptables: { localhostNodePorts: false, masqueradeAll: false, minSyncPeriod: '1s', syncPeriod: '30s' },
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
  });
}

export function kubeProxyArgs(config: string): string[] {
  return [`--config=${config}`, '--v=1'];
}
