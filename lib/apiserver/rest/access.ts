/**
 * Who may call what (kubevirt rest/authorizer.go, tag v1.6.2). virt-api authorizes every request before it routes
 * it, so an unknown path or a wrong method is still reviewed first:
 * - the discovery, health and profiler paths below are public;
 * - any other request needs a verified client certificate (else 401 "request is not authenticated") and a
 *   SubjectAccessReview for the user in X-Remote-User, the groups in X-Remote-Group and the extras in
 *   X-Remote-Extra-*, with resource attributes read off the path's segments by position:
 *   `/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}[/…]` (resource
 *   virtualmachines or virtualmachineinstances; only the first segment after the name is the subresource) or
 *   `/apis/{group}/{version}/namespaces/{namespace}/expand-vm-spec`;
 * - the verb follows the HTTP method as Kubernetes maps it (PUT update, GET and HEAD get, …);
 * - a path or method the review cannot be built for is refused 401 with the reason as text, as is a review that
 *   does not allow (its status.reason); a review that fails is 500 with no body.
 * Pure.
 */
import { unauthorized, type Refusal } from './refusal.ts';

export interface ResourceAttributes {
  readonly namespace: string;
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly name?: string;
}

export type Access =
  | { readonly kind: 'public' }
  | { readonly kind: 'review'; readonly attributes: ResourceAttributes }
  /** 401 with the reason as text, once the client certificate is checked. */
  | { readonly kind: 'refused'; readonly reason: string };

export const NOT_AUTHENTICATED = 'request is not authenticated';

const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  '/',
  '/apis',
  '/healthz',
  '/openapi/v2',
  '/openapi/v3',
  '/start-profiler',
  '/stop-profiler',
  '/dump-profiler',
  ...['v1', 'v1alpha3'].flatMap((v) =>
    [
      '',
      '/version',
      '/guestfs',
      '/healthz',
      '/start-cluster-profiler',
      '/stop-cluster-profiler',
      '/dump-cluster-profiler',
    ].map((p) => `/apis/subresources.kubevirt.io/${v}${p}`),
  ),
]);

/** Kubernetes' verb for an HTTP method (mapHttpVerbToRbacVerb); undefined for a method it does not know. */
export function rbacVerb(method: string, named: boolean): string | undefined {
  switch (method.toLowerCase()) {
    case 'post':
      return 'create';
    case 'get':
    case 'head':
      return named ? 'get' : 'list';
    case 'put':
      return 'update';
    case 'patch':
      return 'patch';
    case 'delete':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** The review's attributes from the path's segments by position, or why none can be built. */
function attributes(method: string, parts: readonly string[]): ResourceAttributes | string {
  const at = (i: number): string => parts[i] ?? '';
  const resource = at(6);
  const base = parts.length === 7;
  const known = base
    ? resource === 'expand-vm-spec'
    : resource === 'virtualmachineinstances' || resource === 'virtualmachines';
  if (!known) return `unknown resource type ${resource}`;
  const verb = rbacVerb(method, !base && at(7) !== '');
  if (verb === undefined) return `unknown http verb in request: ${method}`;
  const common = { namespace: at(5), verb, group: at(2), version: at(3), resource };
  return base ? common : { ...common, subresource: at(8), name: at(7) };
}

/** What a request needs before it is served; `path` is the decoded URL path, without the query. */
export function accessFor(method: string, path: string): Access {
  if (PUBLIC_PATHS.has(path)) return { kind: 'public' };
  const parts = path.split('/');
  if (parts.length < 9 && parts.length !== 7)
    return { kind: 'refused', reason: `unknown api endpoint: ${path}` };
  const attrs = attributes(method, parts);
  return typeof attrs === 'string'
    ? { kind: 'refused', reason: attrs }
    : { kind: 'review', attributes: attrs };
}

/** The 401 of a refused access, of a client without a certificate, or of a review that did not allow. */
export const accessRefusal = (reason: string): Refusal => unauthorized(reason);
