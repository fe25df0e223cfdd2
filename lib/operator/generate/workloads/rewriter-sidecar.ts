/**
 * The rewriter sidecar `proxy` in front of a Pod's admission webhooks (Deckhouse's kube_api_rewriter
 * sidecar_container with WEBHOOK_ADDRESS): the API server's reviews arrive with internal names at the Service's
 * `webhook-proxy` port, and the sidecar renames them and forwards them over TLS to the webhook server beside it.
 */
import type { InstallConfig } from '../../config/install-config.ts';
import { CONTAINERS, PORTS } from '../layout.ts';
import {
  CA_BUNDLE_FILE,
  RESTRICTED,
  metricsTlsFlags,
  probes,
  requests,
  roleArgs,
  tcpPort,
  tlsFiles,
  type ContainerSpec,
  type Mounted,
} from './container.ts';
import type { PodSpec } from './workload.ts';

/** The sidecar's webhook port name (Deckhouse's; the Services' `webhook-proxy` ports target it). */
export const WEBHOOK_PROXY_PORT = 'webhook-proxy';
/** Its health port: not `metrics`, which names the Pod's main container's (one target per Pod). */
const PROXY_METRICS_PORT = 'proxy-metrics';

export interface SidecarOptions {
  /** The Service the webhook server's certificate names. */
  readonly service: string;
  /** The webhook server's port in the Pod. */
  readonly upstreamPort: number;
  /** The webhook server's serving Secret, which the sidecar serves too (the same Service), and its health port. */
  readonly serving: Mounted;
  /** The CA bundle ConfigMap. */
  readonly caBundle: Mounted;
  /** The client certificate shown to the webhook server, when it asks for one. */
  readonly client?: Mounted;
  readonly verbosity: number;
}

/**
 * The sidecar's container, and the host alias its Pod needs: the serving certificate names the Service, not
 * 127.0.0.1, so the sidecar dials the Service's name and the Pod's /etc/hosts sends that name to loopback.
 */
export function rewriterSidecar(
  cfg: InstallConfig,
  o: SidecarOptions,
): { readonly container: ContainerSpec; readonly hostAliases: NonNullable<PodSpec['hostAliases']> } {
  const upstreamHost = `${o.service}.${cfg.namespace}.svc`;
  const serving = tlsFiles(o.serving.mount.mountPath);
  const client = o.client === undefined ? undefined : tlsFiles(o.client.mount.mountPath);
  const args = roleArgs(['rewriter'], {
    '--webhook-listen': `:${PORTS.webhookProxy}`,
    '--webhook-cert': serving.cert,
    '--webhook-key': serving.key,
    '--webhook-upstream': `https://${upstreamHost}:${o.upstreamPort}`,
    '--webhook-upstream-ca': CA_BUNDLE_FILE,
    ...(client !== undefined && {
      '--webhook-upstream-client-cert': client.cert,
      '--webhook-upstream-client-key': client.key,
    }),
    '--metrics-listen': `0.0.0.0:${PORTS.rewriterHealth}`,
    ...metricsTlsFlags(o.serving.mount.mountPath),
    '-v': o.verbosity,
  });
  return {
    container: {
      name: CONTAINERS.rewriter,
      args,
      ports: [
        tcpPort(WEBHOOK_PROXY_PORT, PORTS.webhookProxy),
        tcpPort(PROXY_METRICS_PORT, PORTS.rewriterHealth),
      ],
      mounts: [o.serving, o.caBundle, ...(o.client === undefined ? [] : [o.client])],
      ...probes(PROXY_METRICS_PORT, '/readyz'),
      // A Node process: Deckhouse's 30Mi is its Go rewriter's.
      resources: requests('10m', '64Mi'),
      securityContext: RESTRICTED,
    },
    hostAliases: [{ ip: '127.0.0.1', hostnames: [upstreamHost] }],
  };
}
