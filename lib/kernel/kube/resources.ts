/**
 * GroupVersionResource constants for the resources the kernel touches, and the pure mapping from a GVR to its
 * REST path: core group under `/api/v1`, every other group under `/apis/{group}/{version}`.
 */
import { KvError } from '../errors/errors.ts';
import type { GroupVersionResource } from './types.ts';

/** apiVersion is 'v1' for the core group, 'group/version' otherwise. */
function gvr(apiVersion: string, resource: string, kind: string, namespaced: boolean): GroupVersionResource {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash === -1 ? '' : apiVersion.slice(0, slash);
  return Object.freeze({ group, version: apiVersion.slice(slash + 1), resource, kind, namespaced });
}

export const NAMESPACES = gvr('v1', 'namespaces', 'Namespace', false);
export const NODES = gvr('v1', 'nodes', 'Node', false);
export const PODS = gvr('v1', 'pods', 'Pod', true);
export const PERSISTENT_VOLUME_CLAIMS = gvr('v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true);
export const PERSISTENT_VOLUMES = gvr('v1', 'persistentvolumes', 'PersistentVolume', false);
export const EVENTS = gvr('v1', 'events', 'Event', true);
export const CONFIG_MAPS = gvr('v1', 'configmaps', 'ConfigMap', true);
export const RESOURCE_CLAIMS = gvr('resource.k8s.io/v1', 'resourceclaims', 'ResourceClaim', true);
export const RESOURCE_SLICES = gvr('resource.k8s.io/v1', 'resourceslices', 'ResourceSlice', false);
export const POD_DISRUPTION_BUDGETS = gvr('policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true);
export const LEASES = gvr('coordination.k8s.io/v1', 'leases', 'Lease', true);
export const CUSTOM_RESOURCE_DEFINITIONS = gvr(
  'apiextensions.k8s.io/v1',
  'customresourcedefinitions',
  'CustomResourceDefinition',
  false,
);

export interface PathParts {
  /** Ignored for cluster-scoped resources; absent on a namespaced one means "all namespaces" (lists, watches). */
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/** '/api/v1' for the core group, '/apis/{group}/{version}' otherwise. */
function groupVersionPath(g: Pick<GroupVersionResource, 'group' | 'version'>): string {
  return g.group === '' ? `/api/${g.version}` : `/apis/${g.group}/${g.version}`;
}

/** The REST path of a collection, an object, or an object's subresource. */
export function gvrPath(gvr: GroupVersionResource, parts: PathParts = {}): string {
  const { namespace, name, subresource } = parts;
  if (subresource !== undefined && !name) {
    throw new KvError(
      'KV_ERR_INTERNAL',
      `subresource ${subresource} of ${gvr.resource} needs an object name`,
    );
  }
  let path = groupVersionPath(gvr);
  if (gvr.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${gvr.resource}`;
  if (name) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

/** apiVersion and kind as they appear in an object of this resource. */
export function gvkOf(r: GroupVersionResource): { apiVersion: string; kind: string } {
  return { apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, kind: r.kind };
}
