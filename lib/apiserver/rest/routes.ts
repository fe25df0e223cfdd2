/**
 * The routes virt-api serves (kubevirt pkg/virt-api/api.go composeSubresources, tag v1.6.2, with the Deckhouse
 * fork's evacuatecancel from 3p-kubevirt), for subresources.kubevirt.io v1 and v1alpha3 alike, matched as
 * go-restful does: a path no route has is 404 "404: Page Not Found"; a known path with another method is 405
 * "405: Method Not Allowed" with an Allow header; OPTIONS is answered before authorization with the methods of
 * the path in Allow (go-restful's OPTIONSFilter, 200 and no body). Every other request is authorized first
 * (access.ts), then routed. The target is the URL path with an optional query, read once into tokens
 * (path-tokens.ts) that the router and the access check share; an empty segment inside the path, which
 * go-restful would take as an empty name, is 404 here. Pure.
 */
import { HANDLER_SUBRESOURCE_METHODS } from '../../kubevirt/subresources/handler-subresources.ts';
import { accessFor, type Access } from './access.ts';
import { pathTokens } from './path-tokens.ts';

export type SubresourceVersion = 'v1' | 'v1alpha3';
type SubresourceResource = 'virtualmachines' | 'virtualmachineinstances';
type Method = 'GET' | 'PUT';

const vmRoutes: Readonly<Record<string, Method>> = {
  start: 'PUT',
  stop: 'PUT',
  restart: 'PUT',
  migrate: 'PUT',
  addvolume: 'PUT',
  removevolume: 'PUT',
  memorydump: 'PUT',
  removememorydump: 'PUT',
  /** Deckhouse fork. */
  evacuatecancel: 'PUT',
  /** Deckhouse fork, not in the public mirror: inferred from the virtualization-api that calls it. */
  addresourceclaim: 'PUT',
  removeresourceclaim: 'PUT',
  'expand-spec': 'GET',
  objectgraph: 'GET',
  portforward: 'GET',
};

/** The subresources forwarded to the handler (handler-subresources.ts), and the api's own. */
const vmiRoutes: Readonly<Record<string, Method>> = {
  ...HANDLER_SUBRESOURCE_METHODS,
  addvolume: 'PUT',
  removevolume: 'PUT',
  'sev/setupsession': 'PUT',
  'sev/injectlaunchsecret': 'PUT',
  evacuatecancel: 'PUT',
  addresourceclaim: 'PUT',
  removeresourceclaim: 'PUT',
  'vnc/screenshot': 'GET',
  usbredir: 'GET',
  vsock: 'GET',
  portforward: 'GET',
  objectgraph: 'GET',
  'sev/fetchcertchain': 'GET',
  'sev/querylaunchmeasurement': 'GET',
};

export const SUBRESOURCE_ROUTES: Readonly<Record<SubresourceResource, Readonly<Record<string, Method>>>> = {
  virtualmachines: vmRoutes,
  virtualmachineinstances: vmiRoutes,
};

const VERSION_ENDPOINTS = [
  'version',
  'healthz',
  'guestfs',
  'start-cluster-profiler',
  'stop-cluster-profiler',
  'dump-cluster-profiler',
] as const;
type VersionEndpoint = (typeof VERSION_ENDPOINTS)[number];

/** Root paths, without their slashes. */
const ROOT_PATHS = {
  '': 'root-paths',
  apis: 'api-group-list',
  'apis/subresources.kubevirt.io': 'api-group',
  healthz: 'healthz',
  'openapi/v2': 'openapi-v2',
  'start-profiler': 'start-profiler',
  'stop-profiler': 'stop-profiler',
  'dump-profiler': 'dump-profiler',
} as const;
type RootEndpoint = (typeof ROOT_PATHS)[keyof typeof ROOT_PATHS];

export type Route =
  | {
      readonly kind: 'subresource';
      readonly version: SubresourceVersion;
      readonly resource: SubresourceResource;
      readonly namespace: string;
      readonly name: string;
      /** 'console', 'vnc/screenshot', 'portforward' (its port and protocol apart), … */
      readonly subresource: string;
      readonly port?: string;
      readonly protocol?: string;
    }
  | { readonly kind: 'expand-vm-spec'; readonly version: SubresourceVersion; readonly namespace: string }
  /** The APIResourceList of the version (discovery.ts). */
  | { readonly kind: 'resource-list'; readonly version: SubresourceVersion }
  | {
      readonly kind: 'version-endpoint';
      readonly version: SubresourceVersion;
      readonly endpoint: VersionEndpoint;
    }
  | { readonly kind: 'root'; readonly endpoint: RootEndpoint };

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: Route; readonly access: Access }
  | { readonly kind: 'options'; readonly allow: string }
  | {
      readonly kind: 'error';
      readonly status: 404 | 405;
      readonly message: string;
      readonly allow?: string;
      readonly access: Access;
    };

export const NOT_FOUND_TEXT = '404: Page Not Found';
export const METHOD_NOT_ALLOWED_TEXT = '405: Method Not Allowed';

const GROUP_PREFIX = ['apis', 'subresources.kubevirt.io'];

const isVersion = (v: string | undefined): v is SubresourceVersion => v === 'v1' || v === 'v1alpha3';
const isResource = (r: string | undefined): r is SubresourceResource =>
  r === 'virtualmachines' || r === 'virtualmachineinstances';

function subresource(
  base: Omit<Extract<Route, { kind: 'subresource' }>, 'subresource'>,
  sub: readonly string[],
): [Route, Method] | undefined {
  const [first, port, protocol] = sub;
  if (first === 'portforward') {
    if (port === undefined || sub.length > 3) return undefined;
    return [{ ...base, subresource: first, port, ...(protocol !== undefined && { protocol }) }, 'GET'];
  }
  const key = sub.join('/');
  const routes = SUBRESOURCE_ROUTES[base.resource];
  return Object.hasOwn(routes, key) ? [{ ...base, subresource: key }, routes[key] as Method] : undefined;
}

/** The route of `namespaces/{ns}/…` under a version, and the method it takes. */
function namespaced(version: SubresourceVersion, rest: readonly string[]): [Route, Method] | undefined {
  const [namespaces, namespace = '', resource, name = '', ...sub] = rest;
  if (namespaces !== 'namespaces' || rest.includes('')) return undefined;
  if (resource === 'expand-vm-spec' && rest.length === 3) {
    return [{ kind: 'expand-vm-spec', version, namespace }, 'PUT'];
  }
  if (!isResource(resource) || sub.length === 0) return undefined;
  return subresource({ kind: 'subresource', version, resource, namespace, name }, sub);
}

function routeOf(segments: readonly string[]): [Route, Method] | undefined {
  const joined = segments.join('/');
  if (Object.hasOwn(ROOT_PATHS, joined)) {
    return [{ kind: 'root', endpoint: ROOT_PATHS[joined as keyof typeof ROOT_PATHS] }, 'GET'];
  }
  if (GROUP_PREFIX.some((p, i) => segments[i] !== p)) return undefined;
  const [version, ...rest] = segments.slice(2);
  if (!isVersion(version)) return undefined;
  if (rest.length === 0) return [{ kind: 'resource-list', version }, 'GET'];
  const endpoint = VERSION_ENDPOINTS.find((e) => rest.length === 1 && rest[0] === e);
  if (endpoint !== undefined) return [{ kind: 'version-endpoint', version, endpoint }, 'GET'];
  return namespaced(version, rest);
}

export function matchRequest(method: string, target: string): RouteMatch {
  const tokens = pathTokens(target);
  const found = tokens === undefined ? undefined : routeOf(tokens);
  if (method === 'OPTIONS') return { kind: 'options', allow: found?.[1] ?? '' };
  const access = accessFor(method, tokens);
  if (found === undefined) return { kind: 'error', status: 404, message: NOT_FOUND_TEXT, access };
  const [route, allowed] = found;
  if (method !== allowed) {
    return { kind: 'error', status: 405, message: METHOD_NOT_ALLOWED_TEXT, allow: allowed, access };
  }
  return { kind: 'route', route, access };
}
