/**
 * What the api server asks of the subresource API (rest/): the route of a request (what its access takes: none
 * for the information endpoints, else a client certificate and a SubjectAccessReview with these attributes;
 * and the answer for a path that is not served), the answer to a plain request, and the handling of a stream
 * upgrade. The server does authentication and authorization in between, before any 404 or 405.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Identity, ResourceAttributes } from './auth/index.ts';

type RouteAccess =
  /** An information endpoint anyone with a TLS connection may read. */
  | { readonly kind: 'public' }
  | { readonly kind: 'review'; readonly attributes: ResourceAttributes }
  /** No review can be built: 401 with this reason once the certificate is checked. */
  | { readonly kind: 'refused'; readonly reason: string };

export interface SubresourceRoute {
  /** For metrics and logs: the subresource (`console`, `addvolume`, …) or the endpoint (`discovery`, …). */
  readonly name: string;
  readonly access: RouteAccess;
  /** For a path that is not served: the answer (404, or 405 with the methods it takes), once access passed. */
  readonly unserved?: SubresourceReply;
}

export interface SubresourceCall {
  readonly route: SubresourceRoute;
  readonly query: URLSearchParams;
  readonly identity: Identity | undefined;
}

export interface SubresourceReply {
  readonly code: number;
  readonly body: unknown;
  /** With a string body: sent as is with this type (else the body is JSON). */
  readonly contentType?: string;
  /** The methods a path takes, for an OPTIONS answer. */
  readonly allow?: string;
}

export interface Upgrade {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
}

export interface SubresourceApi {
  /** The route of a request target (the raw path and query, as the request line has it). */
  route(method: string, target: string): SubresourceRoute;
  serve(call: SubresourceCall, body: string): Promise<SubresourceReply>;
  stream(call: SubresourceCall, upgrade: Upgrade): Promise<void>;
}
