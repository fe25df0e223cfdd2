/**
 * The REST server's routes, as KubeVirt's handler registers them (kubevirt cmd/virt-handler/virt-handler.go
 * runServer, tag v1.6.2): `/v1/namespaces/{namespace}/virtualmachineinstances/{name}/<sub>`, for the
 * subresources and methods of lib/kubevirt/subresources/handler-subresources.ts. An unknown path answers
 * go-restful's 404 text, a known path with another method its 405 text with an Allow header. Pure.
 */
import {
  handlerMethod,
  isHandlerSubresource,
  isHandlerSubresourceOf,
  type HandlerCommand,
  type HandlerQuery,
  type HandlerStream,
  type HandlerSubresource,
} from '../../kubevirt/subresources/handler-subresources.ts';

/** The session streams (one per VMI and kind, sessions.ts); portforward opens a tunnel per connection. */
export type StreamRoute = Exclude<HandlerStream, 'portforward'>;
export type CommandRoute = HandlerCommand;
export type QueryRoute = HandlerQuery;
export type RouteName = HandlerSubresource;

export const NOT_FOUND_TEXT = '404: Page Not Found';
export const METHOD_NOT_ALLOWED_TEXT = '405: Method Not Allowed';

export type RouteMatch =
  | {
      readonly ok: true;
      readonly route: RouteName;
      readonly namespace: string;
      readonly name: string;
      /** portforward's `/{port}/{protocol}`, as given. */
      readonly port?: string;
      readonly protocol?: string;
    }
  | { readonly ok: false; readonly status: 404 | 405; readonly message: string; readonly allow?: string };

export function isStreamRoute(route: RouteName): route is StreamRoute {
  return route !== 'portforward' && isHandlerSubresourceOf(route, 'stream');
}

const NOT_FOUND: RouteMatch = { ok: false, status: 404, message: NOT_FOUND_TEXT };

function decodeSegment(s: string): string | undefined {
  try {
    const d = decodeURIComponent(s);
    return d === '' || d.includes('/') ? undefined : d;
  } catch {
    return undefined;
  }
}

interface PathParts {
  readonly namespace: string;
  readonly name: string;
  readonly sub: string;
  readonly port?: string;
  readonly protocol?: string;
}

/**
 * Namespace, name and subresource of `/v1/namespaces/{ns}/virtualmachineinstances/{name}/{sub}`, and of
 * `…/portforward/{port}/{protocol}` (KubeVirt's handler route; the api always sends the protocol).
 */
function pathParts(target: string): PathParts | undefined {
  const q = target.indexOf('?');
  const parts = (q >= 0 ? target.slice(0, q) : target).split('/');
  const [root, v1, namespaces, ns = '', vmis, name = '', sub = '', ...tail] = parts;
  const prefix = [root, v1, namespaces, vmis].join('/');
  if (prefix !== '/v1/namespaces/virtualmachineinstances') return undefined;
  if (tail.length !== (sub === 'portforward' ? 2 : 0)) return undefined;
  const namespace = decodeSegment(ns);
  const decodedName = decodeSegment(name);
  if (namespace === undefined || decodedName === undefined) return undefined;
  const [port, protocol] = tail;
  return {
    namespace,
    name: decodedName,
    sub,
    ...(port !== undefined && protocol !== undefined && { port, protocol }),
  };
}

/** The route of a request line: method and the request target (path with an optional query). */
export function matchRoute(method: string, target: string): RouteMatch {
  const p = pathParts(target);
  if (p === undefined || !isHandlerSubresource(p.sub)) return NOT_FOUND;
  const allowed = handlerMethod(p.sub);
  if (method !== allowed) return { ok: false, status: 405, message: METHOD_NOT_ALLOWED_TEXT, allow: allowed };
  const { port, protocol } = p;
  return {
    ok: true,
    route: p.sub,
    namespace: p.namespace,
    name: p.name,
    ...(port !== undefined && protocol !== undefined && { port, protocol }),
  };
}
