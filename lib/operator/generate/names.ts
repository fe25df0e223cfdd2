/**
 * The names of what the operator installs, in one place: generators, the operator's controller, the local
 * cluster and the tests read them from here. Workloads keep KubeVirt's names (Deckhouse's customizeComponents
 * patches address `virt-api`, `virt-controller`, `virt-handler`); ServiceAccounts and RBAC carry the fork's
 * `kubevirt-internal-virtualization` prefix (its patch 015), which the api's own-service-account defaults
 * already expect; Secrets and ConfigMaps keep KubeVirt's names (components/secrets.go).
 */
import type { Component } from '../config/install-config.ts';

const SA_PREFIX = 'kubevirt-internal-virtualization';

/** The ClusterRole that allows GET /metrics, for the scraper's ServiceAccount (KubeVirt's `<name>-metrics-reader`). */
export const METRICS_READER_CLUSTER_ROLE = `${SA_PREFIX}-metrics-reader`;

/** The field manager of every server-side apply the operator makes. */
export const OPERATOR_FIELD_MANAGER = 'kubevirt-ts-operator';

/** Label keys on every generated object (KubeVirt's, with the fork's install label domain). */
export const LABELS = {
  component: 'kubevirt.io',
  managedBy: 'app.kubernetes.io/managed-by',
  version: 'app.kubernetes.io/version',
  partOf: 'app.kubernetes.io/part-of',
  /** Selects a role's Pods for its metrics Service (KubeVirt's `prometheus.kubevirt.io`). */
  prometheus: 'prometheus.kubevirt.io',
  /** The install this object belongs to, for list-and-delete on removal. */
  install: 'install.internal.virtualization.deckhouse.io/kubevirt',
} as const;

export const MANAGED_BY = 'virt-operator';
export const PART_OF = 'kubevirt';

/** Workload (Deployment/DaemonSet) name of each component. */
export const WORKLOAD: Readonly<Record<Component | 'virt-operator', string>> = {
  'virt-api': 'virt-api',
  'virt-controller': 'virt-controller',
  'virt-handler': 'virt-handler',
  'virt-operator': 'virt-operator',
};

/** ServiceAccount of each component. */
export const SERVICE_ACCOUNT: Readonly<Record<Component | 'virt-operator', string>> = {
  'virt-api': `${SA_PREFIX}-apiserver`,
  'virt-controller': `${SA_PREFIX}-controller`,
  'virt-handler': `${SA_PREFIX}-handler`,
  'virt-operator': `${SA_PREFIX}-operator`,
};

export const SERVICES = {
  /** The api's TLS port (subresources and webhooks). */
  api: 'virt-api',
  /** Every role's /metrics, selected by the prometheus label. */
  metrics: 'kubevirt-prometheus-metrics',
  /** The operator's KubeVirt CR webhooks. */
  operatorWebhook: 'kubevirt-operator-webhook',
} as const;

/**
 * Secrets of type kubernetes.io/tls (keys `tls.crt`, `tls.key`), all signed by the CA in `ca` except `ca`
 * itself. Who mounts which: the api its serving certificate (also its webhook proxy's, same Service) and the
 * handler client certificate it shows the handlers' REST servers; the handler its server certificate; the
 * controller and the operator their own (metrics over TLS; the operator's webhooks). What each certificate
 * says is decided in certs/specs.ts; the common names a peer checks are in lib/kubevirt/certificate-names.ts.
 */
export const SECRETS = {
  ca: 'kubevirt-ca',
  /**
   * serverAuth, CN virt-api.<ns>.pod.cluster.local (KubeVirt's), the virt-api Service's names: the api's TLS
   * port, its webhook proxy and /metrics.
   */
  api: 'kubevirt-virt-api-certs',
  /** clientAuth, CN kubevirt.io:system:client:virt-handler: what the api shows a handler's REST server. */
  handlerClient: 'kubevirt-virt-handler-certs',
  /**
   * serverAuth, CN kubevirt.io:system:node:virt-handler (the api dials node addresses and checks this name):
   * the handler's REST server (console, VNC, lifecycle) and its /metrics, and pr-helper's /metrics.
   */
  handlerServer: 'kubevirt-virt-handler-server-certs',
  /** clientAuth, CN kube-api-rewriter: what the api Pod's rewriter sidecar shows the api for webhook reviews. */
  rewriterClient: 'kubevirt-api-rewriter-client-certs',
  /** serverAuth, CN virt-controller.<ns>.pod.cluster.local, the kubevirt-prometheus-metrics Service's names. */
  controller: 'kubevirt-controller-certs',
  /**
   * serverAuth, CN kubevirt-operator-webhook.<ns>.pod.cluster.local, that Service's names: the KubeVirt CR
   * webhooks and the operator's /metrics.
   */
  operator: 'kubevirt-operator-certs',
} as const;

export const TLS_CERT_KEY = 'tls.crt';
export const TLS_KEY_KEY = 'tls.key';
/** The next CA's pair in the CA's Secret while it waits in the bundle before it signs. */
export const NEXT_CA_CERT_KEY = 'next.crt';
export const NEXT_CA_KEY_KEY = 'next.key';

export const CONFIG_MAPS = {
  /** The CA bundle (key `ca-bundle`): the current CA, then the earlier ones still valid while the overlap lasts. */
  caBundle: 'kubevirt-ca',
  /**
   * Deckhouse's virtualization CA (key `ca-bundle`), which the module installs, not the operator: in `deckhouse`
   * mode the api trusts the virtualization-api's client certificates from it.
   */
  virtualizationCa: 'virtualization-ca',
} as const;

export const CA_BUNDLE_KEY = 'ca-bundle';

/** The leader Lease of the operator's replicas (in the install namespace). */
export const OPERATOR_LEASE = 'virt-operator';

/** The admission webhook configurations: KubeVirt's virt-api-validator, … as the fork renames them. */
export const WEBHOOK_CONFIGURATIONS = {
  apiValidator: 'virt-internal-virtualization-api-validator',
  apiMutator: 'virt-internal-virtualization-api-mutator',
  operatorValidator: 'virt-internal-virtualization-operator-validator',
} as const;
