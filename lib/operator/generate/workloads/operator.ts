/**
 * operatorDeployment(cfg, { replicas }): the operator's own Deployment and its disruption budget, for
 * manifests/ (KubeVirt's components/deployments.go NewOperatorDeployment, as Deckhouse runs it in
 * templates/kubevirt/virt-operator/deployment.yaml: the rewriter sidecar in front of its KubeVirt CR webhooks on
 * 8444). The operator makes its certificate and the CA bundle itself, so its Pod starts without them. The
 * operator role takes only --namespace, --health-port and -v so far.
 */
import type { InstallConfig } from '../../config/install-config.ts';
import { CA_BUNDLE_DIR, CERT_DIRS, CONTAINERS, PORTS } from '../layout.ts';
import { CONFIG_MAPS, SECRETS, SERVICE_ACCOUNT, SERVICES } from '../names.ts';
import {
  METRICS_PORT,
  RESTRICTED,
  configMapAt,
  probes,
  requests,
  roleArgs,
  secretAt,
  tcpPort,
  type ContainerSpec,
} from './container.ts';
import { disruptionBudgetFor, type PodDisruptionBudget } from './disruption-budgets.ts';
import { rewriterSidecar } from './rewriter-sidecar.ts';
import { NON_ROOT_POD, deployment, type Deployment, type PodOptions } from './workload.ts';

/** KubeVirt's default verbosity; the KubeVirt resource does not exist yet when this is rendered. */
const OPERATOR_VERBOSITY = 2;

export function operatorDeployment(
  cfg: InstallConfig,
  o: { readonly replicas: number },
): [Deployment, ...PodDisruptionBudget[]] {
  const serving = secretAt(SECRETS.operator, CERT_DIRS.operator, true);
  const sidecar = rewriterSidecar(cfg, {
    service: SERVICES.operatorWebhook,
    upstreamPort: PORTS.operatorWebhook,
    serving,
    caBundle: configMapAt(CONFIG_MAPS.caBundle, CA_BUNDLE_DIR, true),
    verbosity: OPERATOR_VERBOSITY,
  });
  const operator: ContainerSpec = {
    name: CONTAINERS.operator,
    args: roleArgs(['operator'], {
      '--namespace': cfg.namespace,
      '--health-port': PORTS.operatorHealth,
      '-v': OPERATOR_VERBOSITY,
    }),
    env: [
      { name: 'VIRT_OPERATOR_IMAGE', value: cfg.image },
      { name: 'VIRT_LAUNCHER_IMAGE', value: cfg.launcherImage },
    ],
    ports: [tcpPort(METRICS_PORT, PORTS.operatorHealth), tcpPort('webhooks', PORTS.operatorWebhook)],
    mounts: [serving],
    ...probes(METRICS_PORT, '/healthz'),
    resources: requests('10m', '450Mi'),
    securityContext: RESTRICTED,
  };
  const pod: PodOptions = {
    component: 'virt-operator',
    serviceAccount: SERVICE_ACCOUNT['virt-operator'],
    placement: cfg.infraPlacement,
    spread: true,
    containers: [operator, sidecar.container],
    spec: { hostAliases: sidecar.hostAliases, securityContext: NON_ROOT_POD },
  };
  return [deployment(cfg, o.replicas, pod), ...disruptionBudgetFor(cfg, 'virt-operator', o.replicas)];
}
