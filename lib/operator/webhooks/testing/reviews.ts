/**
 * Test support: AdmissionReview bodies of the KubeVirt CR as kube-apiserver sends them to the operator, with
 * the names the cluster stores (InternalVirtualizationKubeVirt in internal.virtualization.deckhouse.io).
 */
import type { KubeVirt } from '../../../kubevirt/index.ts';

const GROUP = 'internal.virtualization.deckhouse.io';
const KIND = 'InternalVirtualizationKubeVirt';

/** The KubeVirt CR as stored. */
const stored = (kv: KubeVirt): Record<string, unknown> => ({
  ...kv,
  apiVersion: `${GROUP}/v1`,
  kind: KIND,
});

export interface InternalReview {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly object?: KubeVirt;
  readonly oldObject?: KubeVirt;
}

export function internalReview(r: InternalReview, uid = 'kv-1'): string {
  const target = r.object ?? r.oldObject;
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: GROUP, version: 'v1', kind: KIND },
      resource: { group: GROUP, version: 'v1', resource: 'internalvirtualizationkubevirts' },
      name: target?.metadata.name,
      namespace: target?.metadata.namespace,
      operation: r.operation,
      userInfo: { username: 'admin' },
      object: r.object === undefined ? null : stored(r.object),
      oldObject: r.oldObject === undefined ? null : stored(r.oldObject),
    },
  });
}
