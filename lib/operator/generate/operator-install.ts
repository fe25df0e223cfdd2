/**
 * What installs the operator itself (KubeVirt's release manifests, kubevirt-operator.yaml; Deckhouse's
 * templates/kubevirt/virt-operator/): its namespace, its RBAC and its Deployment, for `manifests/` and for the
 * local cluster, from the same generators as the install set, plus a KubeVirt resource for it to install from.
 * As KubeVirt names things; `storedForm` gives what the API server keeps. Pure.
 */
import type { KubeVirt } from '../../kubevirt/index.ts';
import { KUBEVIRT_RENAME } from '../../kubevirt/internal-gvr.ts';
import { rewriteDocument } from '../../rename/index.ts';
import { installConfigFrom } from '../config/from-kubevirt.ts';
import type { InstallMode, Rendered } from '../config/install-config.ts';
import { LABELS } from './names.ts';
import { operatorRbac } from './rbac/operator.ts';
import { operatorDeployment } from './workloads/operator.ts';

export interface OperatorInstallOptions {
  readonly namespace: string;
  /** The image every role runs from. */
  readonly image: string;
  readonly mode: InstallMode;
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  readonly replicas: number;
}

/** The KubeVirt resource the operator installs from; spec as given (KubeVirt's defaults otherwise). */
export function kubevirtResource(namespace: string, spec: KubeVirt['spec'] = {}): KubeVirt {
  return { apiVersion: 'kubevirt.io/v1', kind: 'KubeVirt', metadata: { name: 'kubevirt', namespace }, spec };
}

export function operatorInstall(o: OperatorInstallOptions): Rendered[] {
  const cfg = installConfigFrom(
    kubevirtResource(o.namespace, {
      ...(o.imagePullPolicy !== undefined && { imagePullPolicy: o.imagePullPolicy }),
    }),
    { namespace: o.namespace, image: o.image, mode: o.mode },
  );
  const namespace: Rendered = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: o.namespace } };
  return [namespace, ...operatorRbac(cfg), ...operatorDeployment(cfg, { replicas: o.replicas })].map(
    notInstalled,
  );
}

/**
 * The operator's own objects without the install label: the operator prunes what carries it and it does not
 * render, and it never manages itself (KubeVirt's operator is installed from its release manifests).
 */
function notInstalled(o: Rendered): Rendered {
  if (o.metadata.labels === undefined) return o;
  const labels = Object.fromEntries(Object.entries(o.metadata.labels).filter(([k]) => k !== LABELS.install));
  return { ...o, metadata: { ...o.metadata, labels } };
}

/** An object as the API server stores it (the kubevirt.io names renamed). */
export function storedForm<T>(o: T): T {
  return rewriteDocument(o, KUBEVIRT_RENAME) as T;
}
