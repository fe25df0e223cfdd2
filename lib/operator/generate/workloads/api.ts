/**
 * apiDeployment(cfg): the virt-api Deployment (KubeVirt's components/deployments.go NewApiServerDeployment, with
 * the rewriter sidecar Deckhouse adds in templates/kubevirt/kubevirt.yaml). `virt api` serves the subresources
 * and the admission webhooks on 8443; the API server's reviews reach it through the sidecar, whose client
 * certificate our CA signs. It dials the handlers with its handler client certificate and checks theirs against
 * the CA bundle. In `deckhouse` mode it also trusts the virtualization CA's client certificates. Its health
 * port, and the sidecar's, serve TLS with the api's serving pair.
 */
import type { Component, InstallConfig } from '../../config/install-config.ts';
import { CA_BUNDLE_DIR, CERT_DIRS, CONTAINERS, PORTS, VIRTUALIZATION_CA_DIR } from '../layout.ts';
import { CA_BUNDLE_KEY, CONFIG_MAPS, SECRETS, SERVICE_ACCOUNT, SERVICES } from '../names.ts';
import {
  CA_BUNDLE_FILE,
  METRICS_PORT,
  RESTRICTED,
  configMapAt,
  metricsTlsFlags,
  probes,
  requests,
  roleArgs,
  secretAt,
  tcpPort,
  tlsFiles,
  type ContainerSpec,
} from './container.ts';
import { rewriterSidecar } from './rewriter-sidecar.ts';
import { NON_ROOT_POD, deployment, type Deployment } from './workload.ts';

/** The common name of the handlers' server certificates, which the api checks. */
const HANDLER_SERVER_NAME = 'kubevirt.io:system:node:virt-handler';

/** The api's TLS port name (KubeVirt's); the virt-api Service's `https` port targets it. */
export const API_PORT = 'virt-api';

function serviceAccountUsers(cfg: InstallConfig, components: readonly Component[]): string {
  return components.map((c) => `system:serviceaccount:${cfg.namespace}:${SERVICE_ACCOUNT[c]}`).join(',');
}

function apiContainer(cfg: InstallConfig): ContainerSpec {
  const serving = tlsFiles(CERT_DIRS.api);
  const handlerClient = tlsFiles(CERT_DIRS.apiHandlerClient);
  const deckhouse = cfg.mode === 'deckhouse';
  const args = roleArgs(['api'], {
    '--port': PORTS.api,
    '--listen-address': '0.0.0.0',
    '--tls-cert-file': serving.cert,
    '--tls-private-key-file': serving.key,
    ...(deckhouse && { '--client-ca-file': `${VIRTUALIZATION_CA_DIR}/${CA_BUNDLE_KEY}` }),
    '--webhook-client-ca-file': CA_BUNDLE_FILE,
    '--console-server-port': cfg.handler.consoleServerPort,
    '--handler-ca-file': CA_BUNDLE_FILE,
    '--handler-client-cert-file': handlerClient.cert,
    '--handler-client-key-file': handlerClient.key,
    '--handler-server-name': HANDLER_SERVER_NAME,
    '--own-service-accounts': serviceAccountUsers(cfg, ['virt-api', 'virt-controller', 'virt-handler']),
    '--handler-service-accounts': serviceAccountUsers(cfg, ['virt-handler']),
    '--namespace': cfg.namespace,
    '--health-port': PORTS.apiHealth,
    ...metricsTlsFlags(CERT_DIRS.api),
    '-v': cfg.verbosity['virt-api'],
  });
  return {
    name: CONTAINERS.api,
    args,
    ports: [tcpPort(API_PORT, PORTS.api), tcpPort(METRICS_PORT, PORTS.apiHealth)],
    mounts: [
      secretAt(SECRETS.api, CERT_DIRS.api),
      secretAt(SECRETS.handlerClient, CERT_DIRS.apiHandlerClient),
      configMapAt(CONFIG_MAPS.caBundle, CA_BUNDLE_DIR),
      ...(deckhouse ? [configMapAt(CONFIG_MAPS.virtualizationCa, VIRTUALIZATION_CA_DIR)] : []),
    ],
    ...probes(METRICS_PORT, '/readyz'),
    resources: requests('5m', '500Mi'),
    securityContext: RESTRICTED,
  };
}

export function apiDeployment(cfg: InstallConfig): Deployment {
  const sidecar = rewriterSidecar(cfg, {
    service: SERVICES.api,
    upstreamPort: PORTS.api,
    serving: secretAt(SECRETS.api, CERT_DIRS.api),
    caBundle: configMapAt(CONFIG_MAPS.caBundle, CA_BUNDLE_DIR),
    client: secretAt(SECRETS.rewriterClient, CERT_DIRS.rewriterClient),
    verbosity: cfg.verbosity['virt-api'],
  });
  return deployment(cfg, cfg.infraReplicas, {
    component: 'virt-api',
    serviceAccount: SERVICE_ACCOUNT['virt-api'],
    placement: cfg.infraPlacement,
    spread: true,
    containers: [apiContainer(cfg), sidecar.container],
    spec: { hostAliases: sidecar.hostAliases, securityContext: NON_ROOT_POD },
  });
}
