/**
 * services(cfg): the install's Services (KubeVirt's components/deployments.go NewApiServerService and
 * NewPrometheusService, webhooks.go NewOperatorWebhookService, with the `webhook-proxy` ports Deckhouse's
 * customizeComponents patches add): virt-api's TLS port and its rewriter's webhook proxy, every role's health
 * port for Prometheus, and the operator's webhook proxy. Every target is a named container port.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { PORTS } from '../layout.ts';
import { metadataFor } from '../meta.ts';
import { LABELS, SERVICES } from '../names.ts';
import { API_PORT } from './api.ts';
import { METRICS_PORT } from './container.ts';
import { WEBHOOK_PROXY_PORT } from './rewriter-sidecar.ts';

type ServicePort = { name: string; port: number; targetPort: string; protocol: 'TCP' };
export type Service = {
  apiVersion: 'v1';
  kind: 'Service';
  metadata: Rendered['metadata'];
  spec: {
    type: 'ClusterIP';
    clusterIP?: 'None';
    selector: Record<string, string>;
    ports: ServicePort[];
  };
};

function port(name: string, number: number, targetPort: string): ServicePort {
  return { name, port: number, targetPort, protocol: 'TCP' };
}

function service(
  cfg: InstallConfig,
  name: string,
  spec: Omit<Service['spec'], 'type'> & { component?: string },
): Service {
  const { component, ...rest } = spec;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadataFor(cfg, { name, ...(component !== undefined && { component }) }),
    spec: { type: 'ClusterIP', ...rest },
  };
}

export function services(cfg: InstallConfig): Service[] {
  return [
    service(cfg, SERVICES.api, {
      component: 'virt-api',
      selector: { [LABELS.component]: 'virt-api' },
      ports: [
        port('https', PORTS.https, API_PORT),
        port(WEBHOOK_PROXY_PORT, PORTS.webhookProxy, WEBHOOK_PROXY_PORT),
      ],
    }),
    // Headless: Prometheus scrapes each Pod, not one picked by a virtual IP.
    service(cfg, SERVICES.metrics, {
      clusterIP: 'None',
      selector: { [LABELS.prometheus]: 'true' },
      ports: [port(METRICS_PORT, PORTS.https, METRICS_PORT)],
    }),
    service(cfg, SERVICES.operatorWebhook, {
      component: 'virt-operator',
      selector: { [LABELS.component]: 'virt-operator' },
      ports: [port('webhooks', PORTS.https, 'webhooks')],
    }),
  ];
}
