/**
 * The Pod template and the Deployment around it (KubeVirt's components/deployments.go newPodTemplateSpec,
 * newPodAntiAffinity and newBaseDeployment, with apply/reconcile.go InjectPlacementMetadata): the component and
 * prometheus labels, the placement merged into the Pod, the image pull secrets, the volumes its containers mount.
 */
import { isRecord } from '../../../rename/json.ts';
import type { InstallConfig, Placement, Rendered, Toleration } from '../../config/install-config.ts';
import { metadataFor } from '../meta.ts';
import { LABELS, WORKLOAD } from '../names.ts';
import { container, type Container, type ContainerSpec, type Volume } from './container.ts';

/** A component the operator runs Pods of (its own included). */
export type PodComponent = keyof typeof WORKLOAD;

export type PodSpec = {
  serviceAccountName: string;
  hostNetwork?: boolean;
  dnsPolicy?: 'ClusterFirstWithHostNet';
  hostPID?: boolean;
  hostAliases?: { ip: string; hostnames: string[] }[];
  securityContext?: Record<string, unknown>;
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
  nodeSelector: Record<string, string>;
  tolerations: Toleration[];
  affinity?: unknown;
  imagePullSecrets?: { name: string }[];
};
export type PodTemplate = { metadata: { labels: Record<string, string> }; spec: PodSpec };
export type Selector = { matchLabels: Record<string, string> };
export type Deployment = {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
  metadata: Rendered['metadata'];
  spec: { replicas: number; selector: Selector; template: PodTemplate };
};

export interface PodOptions {
  readonly component: PodComponent;
  readonly serviceAccount: string;
  readonly placement: Placement;
  /** Spread the replicas over nodes: preferred anti-affinity on the component label by hostname. */
  readonly spread: boolean;
  readonly containers: readonly ContainerSpec[];
  readonly initContainers?: readonly ContainerSpec[];
  /** Further fields of the Pod's spec (host network, security context, host aliases). */
  readonly spec?: Partial<PodSpec>;
}

/** The Pod of a non-root image user (KubeVirt's images run as 1001; ours defaults to root). */
export const NON_ROOT_POD: Record<string, unknown> = {
  runAsNonRoot: true,
  runAsUser: 1001,
  seccompProfile: { type: 'RuntimeDefault' },
};

const OS_LABEL = 'kubernetes.io/os';
const HOSTNAME_TOPOLOGY = 'kubernetes.io/hostname';
const CRITICAL_ADDONS_ONLY: Toleration = { key: 'CriticalAddonsOnly', operator: 'Exists' };

export function selectorOf(component: PodComponent): Selector {
  return { matchLabels: { [LABELS.component]: component } };
}

function spreadTerm(component: PodComponent): Record<string, unknown> {
  return {
    weight: 1,
    podAffinityTerm: {
      labelSelector: { matchExpressions: [{ key: LABELS.component, operator: 'In', values: [component] }] },
      topologyKey: HOSTNAME_TOPOLOGY,
    },
  };
}

/**
 * The placement's affinity with the spread term added to its preferred pod anti-affinity terms (KubeVirt
 * appends the placement's terms to the Pod's own); no spread, the placement's as given.
 */
function affinityOf(given: unknown, spread: PodComponent | undefined): unknown {
  if (spread === undefined) return given;
  const base = isRecord(given) ? given : {};
  const anti = isRecord(base['podAntiAffinity']) ? base['podAntiAffinity'] : {};
  const preferred = anti['preferredDuringSchedulingIgnoredDuringExecution'];
  return {
    ...base,
    podAntiAffinity: {
      ...anti,
      preferredDuringSchedulingIgnoredDuringExecution: [
        spreadTerm(spread),
        ...(Array.isArray(preferred) ? (preferred as unknown[]) : []),
      ],
    },
  };
}

/** Every volume the containers mount, once each, in the order first mounted. */
function volumesOf(specs: readonly ContainerSpec[]): Volume[] {
  const byName = new Map<string, Volume>();
  for (const m of specs.flatMap((s) => s.mounts ?? [])) {
    if (!byName.has(m.volume.name)) byName.set(m.volume.name, m.volume);
  }
  return [...byName.values()];
}

export function podTemplate(cfg: InstallConfig, o: PodOptions): PodTemplate {
  const inits = o.initContainers ?? [];
  const volumes = volumesOf([...inits, ...o.containers]);
  const affinity = affinityOf(o.placement.affinity, o.spread ? o.component : undefined);
  return {
    // The version tells the operator which Pods run the install it rolls out (KubeVirt's version annotations).
    metadata: {
      labels: { [LABELS.component]: o.component, [LABELS.prometheus]: 'true', [LABELS.version]: cfg.version },
    },
    spec: {
      serviceAccountName: o.serviceAccount,
      ...o.spec,
      ...(inits.length > 0 && { initContainers: inits.map((c) => container(cfg, c)) }),
      containers: o.containers.map((c) => container(cfg, c)),
      ...(volumes.length > 0 && { volumes }),
      nodeSelector: { [OS_LABEL]: 'linux', ...o.placement.nodeSelector },
      tolerations: [CRITICAL_ADDONS_ONLY, ...o.placement.tolerations],
      ...(affinity !== undefined && { affinity }),
      ...(cfg.imagePullSecrets.length > 0 && {
        imagePullSecrets: cfg.imagePullSecrets.map((name) => ({ name })),
      }),
    },
  };
}

export function deployment(cfg: InstallConfig, replicas: number, pod: PodOptions): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadataFor(cfg, { name: WORKLOAD[pod.component], component: pod.component }),
    spec: { replicas, selector: selectorOf(pod.component), template: podTemplate(cfg, pod) },
  };
}
