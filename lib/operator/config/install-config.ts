/**
 * What the operator installs, decided once from the KubeVirt resource and the operator's own environment
 * (`installConfigFrom` in from-kubevirt.ts). Every generator under `generate/` is a pure function of this
 * value; nothing they render reads the resource itself, so a golden test is one InstallConfig in and objects
 * out.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';

/** The roles the operator deploys, by the name KubeVirt gives their component. */
export type Component = 'virt-api' | 'virt-controller' | 'virt-handler';

/**
 * `kubevirt`: the upstream topology (an APIService for subresources.kubevirt.io, kube-apiserver's front-proxy
 * CA for its callers). `deckhouse`: the fork's (no APIService; the api trusts client certificates from the
 * virtualization CA, whose bundle lives in a ConfigMap the module provides).
 */
export type InstallMode = 'kubevirt' | 'deckhouse';

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** Where a component's Pods may run (KubeVirt's `spec.infra` / `spec.workloads` `nodePlacement`). */
export interface Placement {
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  /** A core/v1 Affinity as sent; absent leaves the generator's default. */
  readonly affinity?: unknown;
}

/** Seconds, as KubeVirt's `certificateRotateStrategy.selfSigned` durations once parsed. */
export interface CertificateRotation {
  readonly caValiditySeconds: number;
  readonly caRenewBeforeSeconds: number;
  readonly certValiditySeconds: number;
  readonly certRenewBeforeSeconds: number;
}

/** One `customizeComponents.patches` entry, checked. */
export interface ComponentPatch {
  readonly resourceType: string;
  readonly resourceName: string;
  readonly type: 'json' | 'merge' | 'strategic';
  readonly patch: string;
}

export interface InstallConfig {
  /** The KubeVirt resource's namespace: everything namespaced is installed there. */
  readonly namespace: string;
  readonly mode: InstallMode;
  /** The one image every role runs from (`virt <role>`). */
  readonly image: string;
  /** The launcher's image (the same one unless told otherwise); the handler's DaemonSet holds it when it differs. */
  readonly launcherImage: string;
  readonly imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  readonly imagePullSecrets: readonly string[];
  /** The tag being installed: `targetKubeVirtVersion`, and the value of the version label on every object. */
  readonly version: string;
  readonly featureGates: readonly string[];
  /** `developerConfiguration.useEmulation`: launchers may use TCG and request no kvm device. */
  readonly useEmulation: boolean;
  /** Log verbosity per component (`developerConfiguration.logVerbosity`, 2 by default). */
  readonly verbosity: Readonly<Record<Component, number>>;
  /** api and controller replicas (`spec.infra.replicas`, 2 by default). */
  readonly infraReplicas: number;
  readonly infraPlacement: Placement;
  readonly workloadsPlacement: Placement;
  /** The handler's ports; Deckhouse runs it on the host network with 4100 (health/metrics) and 4101 (console). */
  readonly handler: {
    readonly hostNetwork: boolean;
    readonly healthPort: number;
    readonly consoleServerPort: number;
  };
  readonly certificateRotation: CertificateRotation;
  /** `customizeComponents.flags`: extra flags per component, put before the generated ones (which win). */
  readonly flags: Readonly<Record<Component, Readonly<Record<string, string>>>>;
  readonly patches: readonly ComponentPatch[];
  readonly uninstallStrategy: 'RemoveWorkloads' | 'BlockUninstallIfWorkloadsExist';
}

/** What every generator returns: complete objects with apiVersion, kind, metadata.name (and namespace). */
export type Rendered = KubeObject & { apiVersion: string; kind: string } & Record<string, unknown>;
