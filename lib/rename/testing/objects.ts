/**
 * Test fixtures for the proxy: VirtualMachine(Instance) objects as the API server stores them (internal
 * names) and as a kubevirt.io client sees them (original names).
 */
import type { KubeObject } from '../../kernel/kube/types.ts';

export const IG = 'internal.virtualization.deckhouse.io';
/** The renamed kubevirt.io label/annotation prefix. */
export const INT = `kubevirt.${IG}`;

export type Obj = Record<string, unknown>;
/** A VMI fixture: any JSON object, and a KubeObject for the clients. */
export type VmiObject = KubeObject & Obj;

export interface ObjectArgs {
  name: string;
  namespace?: string;
  /** Extra top-level fields (spec, status...). */
  extra?: Obj;
}

/** A VMI on the cluster side: internal group, prefixed kind, renamed labels, annotations and finalizers. */
export function internalVmi({ name, namespace = 'ns', extra = {} }: ObjectArgs): VmiObject {
  return {
    apiVersion: `${IG}/v1`,
    kind: 'InternalVirtualizationVirtualMachineInstance',
    metadata: {
      name,
      namespace,
      labels: { [`${INT}/nodeName`]: 'node1', app: name },
      annotations: { [`${INT}/latest-observed-api-version`]: 'v1' },
      finalizers: [`${INT}/virtualMachineControllerFinalize`],
    },
    spec: { domain: { devices: {} } },
    ...extra,
  };
}

/** The same VMI as a kubevirt.io client sees it. */
export function originalVmi({ name, namespace = 'ns', extra = {} }: ObjectArgs): VmiObject {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name,
      namespace,
      labels: { 'kubevirt.io/nodeName': 'node1', app: name },
      annotations: { 'kubevirt.io/latest-observed-api-version': 'v1' },
      finalizers: ['kubevirt.io/virtualMachineControllerFinalize'],
    },
    spec: { domain: { devices: {} } },
    ...extra,
  };
}

export function internalVmiList(items: Obj[], resourceVersion = '100'): Obj {
  return {
    apiVersion: `${IG}/v1`,
    kind: 'InternalVirtualizationVirtualMachineInstanceList',
    metadata: { resourceVersion },
    items,
  };
}

export function originalVmiList(items: Obj[], resourceVersion = '100'): Obj {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceList',
    metadata: { resourceVersion },
    items,
  };
}
