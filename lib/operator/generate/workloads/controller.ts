/**
 * controllerDeployment(cfg): the virt-controller Deployment (KubeVirt's components/deployments.go
 * NewControllerDeployment). `virt controller` elects a leader by Lease in the install namespace and renders
 * launcher Pods from the launcher image; it renames in-process, so it has no rewriter sidecar. Its health port
 * serves TLS with its own certificate (the `controller` Secret).
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
} from './container.ts';
import { NON_ROOT_POD, deployment, type Deployment } from './workload.ts';

export function controllerDeployment(cfg: InstallConfig): Deployment {
  const args = roleArgs(['controller'], {
    '--namespace': cfg.namespace,
    '--launcher-image': cfg.launcherImage,
    '--allow-emulation': cfg.useEmulation,
    '--leader-elect': true,
    '--health-port': PORTS.controllerHealth,
    // The fork's patch 048: under Deckhouse its own controller evacuates VMIs (VirtualMachineOperations).
    '--evacuation': cfg.mode !== 'deckhouse',
    ...metricsTlsFlags(CERT_DIRS.controller),
    '-v': cfg.verbosity['virt-controller'],
  });
  return deployment(cfg, cfg.infraReplicas, {
    component: 'virt-controller',
    serviceAccount: SERVICE_ACCOUNT['virt-controller'],
    placement: cfg.infraPlacement,
    spread: true,
    containers: [
      {
        name: CONTAINERS.controller,
        args,
        ports: [tcpPort(METRICS_PORT, PORTS.controllerHealth)],
        mounts: [secretAt(SECRETS.controller, CERT_DIRS.controller)],
        ...probes(METRICS_PORT, '/healthz'),
        resources: requests('10m', '275Mi'),
        securityContext: RESTRICTED,
      },
    ],
    spec: { securityContext: NON_ROOT_POD },
  });
}
