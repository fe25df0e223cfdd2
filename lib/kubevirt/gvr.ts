/**
 * Group/version/kind/resource of the kubevirt.io objects: the names roles speak. The names the cluster stores
 * (internal.virtualization.deckhouse.io) are derived from these by the rewriter rules, in internal-gvr.ts.
 */
import type { GroupVersionResource } from '../kernel/kube/types.ts';

export const KUBEVIRT_GROUP = 'kubevirt.io';
export const KUBEVIRT_VERSION = 'v1';
export const KUBEVIRT_API_VERSION = `${KUBEVIRT_GROUP}/${KUBEVIRT_VERSION}`;

/** The aggregated API virt-api serves (console, vnc, addvolume, start, ...). */
export const SUBRESOURCES_GROUP = 'subresources.kubevirt.io';
export const SUBRESOURCES_VERSION = 'v1';

function kubevirtResource(resource: string, kind: string): GroupVersionResource {
  return Object.freeze({
    group: KUBEVIRT_GROUP,
    version: KUBEVIRT_VERSION,
    resource,
    kind,
    namespaced: true,
  });
}

export const VIRTUAL_MACHINES = kubevirtResource('virtualmachines', 'VirtualMachine');
export const VIRTUAL_MACHINE_INSTANCES = kubevirtResource(
  'virtualmachineinstances',
  'VirtualMachineInstance',
);
export const KUBEVIRTS = kubevirtResource('kubevirts', 'KubeVirt');
export const VIRTUAL_MACHINE_INSTANCE_MIGRATIONS = kubevirtResource(
  'virtualmachineinstancemigrations',
  'VirtualMachineInstanceMigration',
);

/** Path of a subresource call: /apis/subresources.kubevirt.io/v1/namespaces/{ns}/{resource}/{name}/{sub}. */
export function subresourcePath(
  target: { resource: 'virtualmachines' | 'virtualmachineinstances'; namespace: string; name: string },
  subresource: string,
): string {
  const ns = encodeURIComponent(target.namespace);
  const name = encodeURIComponent(target.name);
  return `/apis/${SUBRESOURCES_GROUP}/${SUBRESOURCES_VERSION}/namespaces/${ns}/${target.resource}/${name}/${subresource}`;
}
