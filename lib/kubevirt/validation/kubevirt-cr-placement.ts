/**
 * KubeVirt's placement checks on a KubeVirt update (kubevirt-update-admitter.go validateInfraPlacement and
 * validateWorkloadPlacement): a changed spec.infra.nodePlacement is tried as a one-replica Deployment, a changed
 * spec.workloads.nodePlacement as a DaemonSet, both created with dryRun=All in the KubeVirt CR's namespace so
 * the API server validates the node selector, affinity and tolerations. A refusal's message becomes a cause.
 * This file says which checks an update needs and builds the probe objects; the caller creates them. Pure.
 */
import { semanticEqual } from './equality.ts';
import type { KubeVirtView } from './kubevirt-cr-read.ts';

export interface PlacementCheck {
  readonly component: 'infra' | 'workloads';
  readonly nodePlacement: Readonly<Record<string, unknown>>;
}

/** The placements an update changed and sets, in KubeVirt's order (infra first). */
export function placementChecks(oldKv: KubeVirtView, newKv: KubeVirtView): PlacementCheck[] {
  const out: PlacementCheck[] = [];
  for (const component of ['infra', 'workloads'] as const) {
    const nodePlacement = newKv[component]?.nodePlacement;
    if (!semanticEqual(oldKv.raw[component], newKv.raw[component]) && nodePlacement !== undefined)
      out.push({ component, nodePlacement });
  }
  return out;
}

export interface PlacementProbe {
  readonly apiVersion: 'apps/v1';
  readonly kind: 'Deployment' | 'DaemonSet';
  readonly metadata: { readonly name: string };
  readonly spec: Readonly<Record<string, unknown>>;
}

const NAME = 'placement-validation-webhook';
const LABEL = 'kubevirt.io/choose-me';
const POD = 'placement-verification-pod';
/** The NodePlacement fields KubeVirt copies into the Pod template. */
const PLACED = ['nodeSelector', 'affinity', 'tolerations'] as const;

/** The Deployment (infra) or DaemonSet (workloads) KubeVirt dry-runs, with the placement in its Pod template. */
export function placementProbe(check: PlacementCheck): PlacementProbe {
  const placement = Object.fromEntries(
    PLACED.flatMap((k) => {
      const v = check.nodePlacement[k];
      return v === undefined || v === null ? [] : [[k, v]];
    }),
  );
  const template = {
    metadata: { generateName: POD, labels: { [LABEL]: '' } },
    spec: { containers: [{ name: POD, image: 'test.only:latest' }], ...placement },
  };
  const selector = { matchLabels: { [LABEL]: '' } };
  return check.component === 'infra'
    ? {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: NAME },
        spec: { replicas: 1, selector, template },
      }
    : { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: NAME }, spec: { selector, template } };
}
