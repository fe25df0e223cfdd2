/**
 * podDisruptionBudgets(cfg): a budget per Deployment the operator installs (KubeVirt's components/deployments.go
 * NewPodDisruptionBudgetForDeployment, with apply/apps.go syncPodDisruptionBudgetForDeployment): `<name>-pdb`
 * selecting the Deployment's Pods, minAvailable one less than its replicas, and no budget when that is 0.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { metadataFor } from '../meta.ts';
import { WORKLOAD } from '../names.ts';
import { selectorOf, type PodComponent, type Selector } from './workload.ts';

export type PodDisruptionBudget = {
  apiVersion: 'policy/v1';
  kind: 'PodDisruptionBudget';
  metadata: Rendered['metadata'];
  spec: { minAvailable: number; selector: Selector };
};

/** The budget of a Deployment with these replicas: none for a single one. */
export function disruptionBudgetFor(
  cfg: InstallConfig,
  component: PodComponent,
  replicas: number,
): PodDisruptionBudget[] {
  const minAvailable = replicas - 1;
  if (minAvailable < 1) return [];
  return [
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: metadataFor(cfg, { name: `${WORKLOAD[component]}-pdb`, component }),
      spec: { minAvailable, selector: selectorOf(component) },
    },
  ];
}

export function podDisruptionBudgets(cfg: InstallConfig): PodDisruptionBudget[] {
  return (['virt-api', 'virt-controller'] as const).flatMap((c) =>
    disruptionBudgetFor(cfg, c, cfg.infraReplicas),
  );
}
