/** The shape of one KubeVirt component's RBAC as transcribed, and the resource lists several of them share. */
import type { PolicyRule } from '../policy.ts';

export interface KubeVirtRbac {
  /** The ClusterRole named like the component's ServiceAccount, bound to it cluster-wide. */
  readonly cluster: readonly PolicyRule[];
  /** The Role of the same name in the install namespace. */
  readonly namespaced: readonly PolicyRule[];
}

/** instancetype.kubevirt.io's four resources, in the order KubeVirt's rules list them. */
export const INSTANCETYPE_RESOURCES = [
  'virtualmachineinstancetypes',
  'virtualmachineclusterinstancetypes',
  'virtualmachinepreferences',
  'virtualmachineclusterpreferences',
] as const;
