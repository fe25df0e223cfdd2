/**
 * What each certificate the operator issues must say: common name, extended key usage and DNS names, per
 * InstallConfig. Mirrors KubeVirt's components/secrets.go populationStrategy and triple.NewServerKeyPair (a
 * serving certificate names its Service in four forms, its CN is `<service>.<namespace>.pod.cluster.local`).
 */
import type { ExtendedKeyUsage } from '../../../kernel/x509/certificate.ts';
import {
  HANDLER_CLIENT_CN,
  HANDLER_SERVER_CN,
  REWRITER_CLIENT_CN,
} from '../../../kubevirt/certificate-names.ts';
import type { InstallConfig } from '../../config/install-config.ts';
import { SERVICES, WORKLOAD, type SECRETS } from '../names.ts';

/** The leaf certificates, by their key in SECRETS. */
export type LeafName = Exclude<keyof typeof SECRETS, 'ca'>;

export interface LeafSpec {
  readonly commonName: string;
  readonly extKeyUsage: readonly ExtendedKeyUsage[];
  readonly dnsNames: readonly string[];
}

/** KubeVirt's fixed cluster DNS domain (components.CaClusterLocal). */
const CLUSTER_DOMAIN = 'cluster.local';
/** The Service KubeVirt names in the handler's serving certificate; no such Service is installed. */
const HANDLER_SERVICE = 'virt-handler';

/** The CA's common name: KubeVirt's triple.NewCA signer name, `kubevirt.io@<unix seconds>`. */
export function caCommonName(now: Date): string {
  return `kubevirt.io@${String(Math.floor(now.getTime() / 1000))}`;
}

/** A Service's names as a serving certificate carries them (triple.NewServerKeyPair). */
function serviceNames(service: string, namespace: string): string[] {
  const namespaced = `${service}.${namespace}`;
  return [service, namespaced, `${namespaced}.svc`, `${namespaced}.svc.${CLUSTER_DOMAIN}`];
}

function serving(commonName: string, service: string, namespace: string): LeafSpec {
  return { commonName, extKeyUsage: ['serverAuth'], dnsNames: serviceNames(service, namespace) };
}

function podName(component: string, namespace: string): string {
  return `${component}.${namespace}.pod.${CLUSTER_DOMAIN}`;
}

const client = (commonName: string): LeafSpec => ({ commonName, extKeyUsage: ['clientAuth'], dnsNames: [] });

/** Every leaf certificate, in the order they are issued and rendered. */
export function leafSpecs(cfg: InstallConfig): Readonly<Record<LeafName, LeafSpec>> {
  const ns = cfg.namespace;
  return {
    api: serving(podName(SERVICES.api, ns), SERVICES.api, ns),
    handlerServer: serving(HANDLER_SERVER_CN, HANDLER_SERVICE, ns),
    handlerClient: client(HANDLER_CLIENT_CN),
    rewriterClient: client(REWRITER_CLIENT_CN),
    controller: serving(podName(WORKLOAD['virt-controller'], ns), SERVICES.metrics, ns),
    operator: serving(podName(SERVICES.operatorWebhook, ns), SERVICES.operatorWebhook, ns),
  };
}
