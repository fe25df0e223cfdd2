/**
 * Authentication and authorization for the api role, per request:
 *
 *   const authn = authenticate(req.socket as TLSSocket, req.headersDistinct, config);
 *   if (!authn.ok) return reply(authn.status);             // 401, identity headers were not read
 *   const attrs = ...;                                      // the router's (rest/access.ts accessFor)
 *   const authz = await authorize(authorizer, authn.identity, attrs); // throws → 500
 *   if (!authz.allowed) return reply(authz.status);         // 403
 *
 * The TLS server is created with `requestCert: true, rejectUnauthorized: false, ca: trustedCaPems(config)`.
 * Logs may carry the user name and the refusal message; never header values other than the user, PEM text
 * or tokens.
 */
import type { TLSSocket } from 'node:tls';
import type { Clock } from '../../kernel/clock.ts';
import type { Status } from '../../kernel/errors/errors.ts';
import type { AuthConfig } from './config.ts';
import type { HeaderValues } from './headers.ts';
import { identify, type Identity, type TrustSource } from './identity.ts';
import { peerFacts } from './peer.ts';
import type { Authorizer, ResourceAttributes } from './sar.ts';
import { forbiddenStatus, unauthorizedStatus } from './status.ts';

export {
  namedTrust,
  parseRequestHeaderConfig,
  trustedCaPems,
  VIRTUALIZATION_API_PROXY_CN,
  WEBHOOK_CLIENT_CN,
  type AuthConfig,
  type NamedTrust,
} from './config.ts';
export { type Decision } from './decision-cache.ts';
export type { HeaderValues } from './headers.ts';
export { type Identity } from './identity.ts';
export { SarAuthorizer, type Authorizer, type ResourceAttributes } from './sar.ts';
export { webhookCallerStatus } from './webhook-caller.ts';

export type Authentication =
  | { readonly ok: true; readonly identity: Identity; readonly via: TrustSource }
  | { readonly ok: false; readonly status: Status };

export type Authorization = { readonly allowed: true } | { readonly allowed: false; readonly status: Status };

/** Who the request on this connection acts for, or the 401 Status to answer. */
export function authenticate(
  socket: TLSSocket,
  headers: HeaderValues,
  config: AuthConfig,
  clock?: Clock,
): Authentication {
  const result = identify(peerFacts(socket, config, clock), config, headers);
  return result.ok ? result : { ok: false, status: unauthorizedStatus(result.message) };
}

/** Whether the identity may do this, or the 403 Status to answer. Throws when the cluster cannot be asked. */
export async function authorize(
  authorizer: Authorizer,
  identity: Identity,
  attrs: ResourceAttributes,
): Promise<Authorization> {
  const decision = await authorizer.authorize(identity, attrs);
  return decision.allowed
    ? decision
    : { allowed: false, status: forbiddenStatus(identity, attrs, decision.reason) };
}
