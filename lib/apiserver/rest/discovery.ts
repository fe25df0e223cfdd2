/**
 * The discovery documents virt-api serves (kubevirt pkg/virt-api/api.go subresourceAPIGroup and
 * composeSubresources, tag v1.6.2, with the Deckhouse fork's evacuatecancel), as Go's encoding/json writes them:
 * - GET /apis/subresources.kubevirt.io: the APIGroup. Its name reads "subresource.kubevirt.io", without the s,
 *   as KubeVirt writes it; versions v1 (preferred) and v1alpha3; one server address for 0.0.0.0/0;
 * - GET /apis: an APIGroupList holding that group;
 * - GET /apis/subresources.kubevirt.io/{v1,v1alpha3}: an APIResourceList of the subresources, each namespaced
 *   with no kind and no verbs (null), and an empty singular name. KubeVirt lists only these, in this order (no
 *   virtualmachines/addvolume, no usbredir, no vnc/screenshot);
 * - GET /: the root paths, the group's path once per version.
 * Pure data.
 */
import type { SubresourceVersion } from './routes.ts';

const SUBRESOURCE_GROUP = 'subresources.kubevirt.io';
const SUBRESOURCE_VERSIONS: readonly SubresourceVersion[] = ['v1', 'v1alpha3'];

interface GroupVersionForDiscovery {
  readonly groupVersion: string;
  readonly version: string;
}

export interface ApiGroup {
  readonly kind: 'APIGroup';
  readonly name: string;
  readonly versions: readonly GroupVersionForDiscovery[];
  readonly preferredVersion: GroupVersionForDiscovery;
  readonly serverAddressByClientCIDRs: readonly {
    readonly clientCIDR: string;
    readonly serverAddress: string;
  }[];
}

interface ApiResource {
  readonly name: string;
  readonly singularName: string;
  readonly namespaced: boolean;
  readonly kind: string;
  readonly verbs: readonly string[] | null;
}

export interface ApiResourceList {
  readonly kind: 'APIResourceList';
  readonly apiVersion: 'v1';
  readonly groupVersion: string;
  readonly resources: readonly ApiResource[];
}

/** The names of the APIResourceList, in KubeVirt's order. */
export const DISCOVERED_SUBRESOURCES: readonly string[] = [
  'expand-vm-spec',
  ...['vnc', 'console', 'portforward', 'pause', 'unpause', 'freeze', 'unfreeze', 'reset', 'softreboot'].map(
    (s) => `virtualmachineinstances/${s}`,
  ),
  ...['start', 'stop', 'restart', 'migrate', 'expand-spec', 'evacuatecancel', 'objectgraph'].map(
    (s) => `virtualmachines/${s}`,
  ),
  ...[
    'guestosinfo',
    'userlist',
    'filesystemlist',
    'addvolume',
    'removevolume',
    'objectgraph',
    'sev/fetchcertchain',
    'sev/querylaunchmeasurement',
    'sev/setupsession',
    'sev/injectlaunchsecret',
    'evacuatecancel',
  ].map((s) => `virtualmachineinstances/${s}`),
];

const groupVersion = (version: SubresourceVersion): GroupVersionForDiscovery => ({
  groupVersion: `${SUBRESOURCE_GROUP}/${version}`,
  version,
});

export function apiGroup(): ApiGroup {
  return {
    kind: 'APIGroup',
    name: 'subresource.kubevirt.io',
    versions: SUBRESOURCE_VERSIONS.map(groupVersion),
    preferredVersion: groupVersion('v1'),
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }],
  };
}

export function apiGroupList(): { readonly kind: 'APIGroupList'; readonly groups: readonly ApiGroup[] } {
  return { kind: 'APIGroupList', groups: [apiGroup()] };
}

export function apiResourceList(version: SubresourceVersion): ApiResourceList {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${SUBRESOURCE_GROUP}/${version}`,
    resources: DISCOVERED_SUBRESOURCES.map((name) => ({
      name,
      singularName: '',
      namespaced: true,
      kind: '',
      verbs: null,
    })),
  };
}

export function rootPaths(): { readonly paths: readonly string[] } {
  const group = `/apis/${SUBRESOURCE_GROUP}`;
  return {
    paths: ['/apis', '/openapi/v2', ...SUBRESOURCE_VERSIONS.flatMap((v) => [group, `${group}/${v}`])],
  };
}
