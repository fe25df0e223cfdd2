/**
 * What the api server asks of the subresource API (rest/): the route of a request (with the
 * SubjectAccessReview attributes it needs, none for the information endpoints), the answer to a plain request,
 * and the handling of a stream upgrade. The server does authentication and authorization in between.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from '../kernel/errors/errors.ts';
import type { Identity, ResourceAttributes } from './auth/index.ts';

export interface SubresourceRoute {
  /** For metrics and logs: the subresource (`console`, `addvolume`, …) or the endpoint (`discovery`, …). */
  readonly name: string;
  /** undefined: an information endpoint anyone with a TLS connection may read. */
  readonly attributes?: ResourceAttributes;
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
  /** The route, or the Status to answer (404 unknown, 405 with the methods it allows). */
  route(method: string, path: string): SubresourceRoute | Status;
  serve(call: SubresourceCall, body: string): Promise<SubresourceReply>;
  stream(call: SubresourceCall, upgrade: Upgrade): Promise<void>;
}
