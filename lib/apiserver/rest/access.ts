/**
 * Who may call what (kubevirt rest/authorizer.go, tag v1.6.2). virt-api authorizes every request before it routes
 * it, so an unknown path or a wrong method is still reviewed first:
 * - the discovery, health and profiler paths below are public;
 * - any other request needs a verified client certificate (else 401 "request is not authenticated") and a
 *   SubjectAccessReview for the user in X-Remote-User, the groups in X-Remote-Group and the extras in
 *   X-Remote-Extra-*, with resource attributes read off the path's tokens (path-tokens.ts, the router's own)
 *   by position:
 *   `/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}/{subresource}[/…]` (resource
 *   virtualmachines or virtualmachineinstances; only the first segment after the name is the subresource) or
 *   `/apis/{group}/{version}/namespaces/{namespace}/expand-vm-spec`;
 * - the verb follows the HTTP method as Kubernetes maps it (PUT update, GET and HEAD get, …);
 * - a path or method the review cannot be built for is refused 401 with the reason as text, as is a review that
 *   does not allow (its status.reason); a review that fails is 500 with no body.
 * Pure.
 */
import type { ResourceAttributes } from '../auth/index.ts';
import { unauthorized, type Refusal } from './refusal.ts';

export type Access =
  | { readonly kind: 'public' }
  | { readonly kind: 'review'; readonly attributes: ResourceAttributes }
  /** 401 with the reason as text, once the client certificate is checked. */
  | { readonly kind: 'refused'; readonly reason: string };

export const NOT_AUTHENTICATED = 'request is not authenticated';

/** The public paths as tokens joined by '/'. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  '',
  'apis',
  'healthz',
  'openapi/v2',
  'openapi/v3',
  'start-profiler',
  'stop-profiler',
  'dump-profiler',
  ...['v1', 'v1alpha3'].flatMap((v) =>
    [
      '',
      '/version',
      '/guestfs',
      '/healthz',
      '/start-cluster-profiler',
      '/stop-cluster-profiler',
      '/dump-cluster-profiler',
    ].map((p) => `apis/subresources.kubevirt.io/${v}${p}`),
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

/** The review's attributes from the path's tokens by position, or why none can be built. */
function attributes(method: string, tokens: readonly string[]): ResourceAttributes | string {
  const at = (i: number): string => tokens[i] ?? '';
  const resource = at(5);
  const base = tokens.length === 6;
  const known = base
    ? resource === 'expand-vm-spec'
    : resource === 'virtualmachineinstances' || resource === 'virtualmachines';
  if (!known) return `unknown resource type ${resource}`;
  const verb = rbacVerb(method, !base && at(6) !== '');
  if (verb === undefined) return `unknown http verb in request: ${method}`;
  const common = { namespace: at(4), verb, group: at(1), version: at(2), resource };
  return base ? common : { ...common, subresource: at(7), name: at(6) };
}

/** What a request needs before it is served, from its path's tokens (undefined: a path that does not read). */
export function accessFor(method: string, tokens: readonly string[] | undefined): Access {
  if (tokens === undefined) return { kind: 'refused', reason: 'unknown api endpoint' };
  const joined = tokens.join('/');
  if (PUBLIC_PATHS.has(joined)) return { kind: 'public' };
  if (tokens.length < 8 && tokens.length !== 6)
    return { kind: 'refused', reason: `unknown api endpoint: /${joined}` };
  const attrs = attributes(method, tokens);
  return typeof attrs === 'string'
    ? { kind: 'refused', reason: attrs }
    : { kind: 'review', attributes: attrs };
}

/** The 401 of a refused access, of a client without a certificate, or of a review that did not allow. */
export const accessRefusal = (reason: string): Refusal => unauthorized(reason);
