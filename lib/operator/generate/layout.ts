/**
 * Where things are inside the installed Pods: container names, ports and the paths certificates and host
 * directories are mounted at (KubeVirt's components/deployments.go and daemonsets.go, with the ports Deckhouse
 * runs the handler on). The workload generators mount at these paths and pass them as flags; the certificate
 * generator names the Services whose DNS names the serving certificates carry.
 */
import type { Component } from '../config/install-config.ts';

/** Container names (KubeVirt's; `proxy` is the rewriter sidecar as Deckhouse names it). */
export const CONTAINERS = {
  api: 'virt-api',
  controller: 'virt-controller',
  handler: 'virt-handler',
  nodeLabeller: 'virt-launcher',
  imageHolder: 'virt-launcher-image-holder',
  prHelper: 'pr-helper',
  operator: 'virt-operator',
  rewriter: 'proxy',
} as const;

export const PORTS = {
  /** The api's TLS port: subresources.kubevirt.io and, behind the rewriter, the webhooks. */
  api: 8443,
  /** The api's /healthz, /readyz and /metrics. */
  apiHealth: 8186,
  /** The rewriter sidecar's TLS webhook proxy, which the webhook configurations point at. */
  webhookProxy: 24192,
  /** The rewriter sidecar's /healthz, /readyz and /metrics. */
  rewriterHealth: 9090,
  controllerHealth: 8443,
  /** Deckhouse's host-network ports for the handler (KubeVirt's 8443 and 8186). */
  handlerHealth: 4100,
  handlerConsole: 4101,
  prHelperHealth: 8187,
  operatorHealth: 8186,
  /** The operator's KubeVirt CR webhooks (kube-apiserver calls them with no rewriter in front). */
  operatorWebhook: 8444,
  /** The port every Service exposes for HTTPS (the APIService and webhook Services use it). */
  https: 443,
} as const;

/** A certificate Secret (tls.crt, tls.key) is mounted read-only as a directory. */
export const CERT_DIRS = {
  api: '/etc/virt-api/certificates',
  /** The client certificate the api shows the handlers' REST servers. */
  apiHandlerClient: '/etc/virt-handler/clientcertificates',
  /** The client certificate the api Pod's rewriter shows the api for webhook reviews. */
  rewriterClient: '/etc/virt-api/rewriter-client',
  handlerServer: '/etc/virt-handler/servercertificates',
  /** The client certificate a handler shows the target node's migration proxy. */
  handlerMigrationClient: '/etc/virt-handler/clientcertificates',
  controller: '/etc/virt-controller/certificates',
  operator: '/etc/virt-operator/certificates',
} as const;

/** The CA bundle ConfigMap (key `ca-bundle`) is mounted here in every component that checks a peer. */
export const CA_BUNDLE_DIR = '/etc/kubevirt/ca';

/** The virtualization CA ConfigMap (`deckhouse` mode) in the api's container. */
export const VIRTUALIZATION_CA_DIR = '/etc/virt-api/virtualization-ca';

/** Host directories the handler DaemonSet mounts (KubeVirt's paths; each generator flag-passes the same). */
export const HOST_PATHS = {
  /** The kubelet's root: its pods dir, device plugins and the CSI plugins' block devices lie below it. */
  kubelet: '/var/lib/kubelet',
  kubeletPods: '/var/lib/kubelet/pods',
  devicePlugins: '/var/lib/kubelet/device-plugins',
  nodeLabeller: '/var/lib/kubevirt-node-labeller',
  /** Sockets the handler and pr-helper share with launchers (pr-helper's under daemons/pr). */
  kubevirtRun: '/var/run/kubevirt',
  prHelperSocketDir: '/var/run/kubevirt/daemons/pr',
  /**
   * Where containerd's CRI plugin mounts Pods' image volumes (its default state dir): the handler finds a
   * hotplugged containerDisk's image there (the Deckhouse fork's image hotplug).
   */
  containerdImageVolumes: '/run/containerd/io.containerd.grpc.v1.cri/image-volumes',
} as const;

/** KubeVirt's default log verbosity of a component. */
export const DEFAULT_VERBOSITY: Readonly<Record<Component, number>> = {
  'virt-api': 2,
  'virt-controller': 2,
  'virt-handler': 2,
};
