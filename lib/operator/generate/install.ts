/**
 * The install set of one KubeVirt resource: every object the operator keeps in the cluster, rendered by the
 * generators from the InstallConfig and the planned certificates (KubeVirt's install strategy,
 * pkg/virt-operator/resource/generate/install/strategy.go GenerateCurrentInstallStrategy). As KubeVirt names
 * things; the apply step stores them renamed. Pure.
 */
import type { InstallConfig, Rendered } from '../config/install-config.ts';
import type { CertificatePlan } from './certs/plan.ts';
import { certificateObjects } from './certs/render.ts';
import { componentRbac } from './rbac/components.ts';
import { apiServices } from './webhooks/api-services.ts';
import { apiWebhookConfigurations, operatorWebhookConfiguration } from './webhooks/admission.ts';
import { apiDeployment } from './workloads/api.ts';
import { controllerDeployment } from './workloads/controller.ts';
import { podDisruptionBudgets } from './workloads/disruption-budgets.ts';
import { handlerDaemonSet } from './workloads/handler.ts';
import { services } from './workloads/services.ts';

export function renderInstall(cfg: InstallConfig, certificates: CertificatePlan): Rendered[] {
  return [
    ...componentRbac(cfg),
    ...certificateObjects(cfg, certificates),
    ...services(cfg),
    ...podDisruptionBudgets(cfg),
    apiDeployment(cfg),
    controllerDeployment(cfg),
    handlerDaemonSet(cfg),
    ...apiWebhookConfigurations(cfg, certificates.bundle),
    operatorWebhookConfiguration(cfg, certificates.bundle),
    ...apiServices(cfg, certificates.bundle),
  ];
}
