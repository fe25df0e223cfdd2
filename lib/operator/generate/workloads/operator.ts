/**
 * operatorDeployment(cfg, { replicas }): the operator's own Deployment and its disruption budget, for
 * manifests/ (KubeVirt's components/deployments.go NewOperatorDeployment, as Deckhouse runs it in
 * templates/kubevirt/virt-operator/deployment.yaml). Unlike Deckhouse's, no rewriter sidecar: the operator restores
 * its KubeVirt CR webhook reviews from the stored names itself and serves them on 8444 with the certificate it
 * issues and reads from its Secret. The same Secret is mounted, optional, for its health port's TLS: the
 * operator issues it, so its first Pod starts before it exists (and serves a temporary certificate until then).
 */
import type { InstallConfig } from '../../config/install-config.ts';
import { CERT_DIRS, CONTAINERS, PORTS } from '../layout.ts';
import { SECRETS, SERVICE_ACCOUNT } from '../names.ts';
import {
  METRICS_PORT,
  RESTRICTED,
  metricsTlsFlags,
  probes,
  requests,
  roleArgs,
  secretAt,
  tcpPort,
  type ContainerSpec,
} from './container.ts';
import { disruptionBudgetFor, type PodDisruptionBudget } from './disruption-budgets.ts';
import { NON_ROOT_POD, deployment, type Deployment, type PodOptions } from './workload.ts';

/** KubeVirt's default verbosity; the KubeVirt resource does not exist yet when this is rendered. */
const OPERATOR_VERBOSITY = 2;

export function operatorDeployment(
  cfg: InstallConfig,
  o: { readonly replicas: number },
): [Deployment, ...PodDisruptionBudget[]] {
  const operator: ContainerSpec = {
    name: CONTAINERS.operator,
    args: roleArgs(['operator'], {
      '--namespace': cfg.namespace,
      '--install-mode': cfg.mode,
      '--health-port': PORTS.operatorHealth,
      ...metricsTlsFlags(CERT_DIRS.operator),
      '--webhook-port': PORTS.operatorWebhook,
      '-v': OPERATOR_VERBOSITY,
    }),
    env: [
      { name: 'VIRT_OPERATOR_IMAGE', value: cfg.image },
      { name: 'VIRT_LAUNCHER_IMAGE', value: cfg.launcherImage },
    ],
    ports: [tcpPort(METRICS_PORT, PORTS.operatorHealth), tcpPort('webhooks', PORTS.operatorWebhook)],
    mounts: [secretAt(SECRETS.operator, CERT_DIRS.operator, true)],
    ...probes(METRICS_PORT, '/healthz'),
    resources: requests('10m', '450Mi'),
    securityContext: RESTRICTED,
  };
  const pod: PodOptions = {
    component: 'virt-operator',
    serviceAccount: SERVICE_ACCOUNT['virt-operator'],
    placement: cfg.infraPlacement,
    spread: true,
    containers: [operator],
    spec: { securityContext: NON_ROOT_POD },
  };
  return [deployment(cfg, o.replicas, pod), ...disruptionBudgetFor(cfg, 'virt-operator', o.replicas)];
}
