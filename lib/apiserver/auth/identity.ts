/**
 * Who a request acts for, from what the TLS layer verified and the request's headers. Pure.
 *
 * Identity headers are believed only from a proxy the server trusts:
 *  - a certificate verified by the request-header CA (kube-apiserver's aggregator, the front proxy), whose
 *    common name is one of requestheader-allowed-names when that list is not empty;
 *  - a certificate verified by the Deckhouse virtualization-ca (virtualization-api proxying a user's call),
 *    whose common name is one of its allowed names (--client-ca-allowed-names; never an empty list, since that
 *    CA signs the module's other certificates too).
 * Anything else is refused with 401 and its headers are never read, so a forged `X-Remote-User` without such
 * a certificate gets nowhere. Messages name header names and certificate common names, never header values.
 */
import { nameRefusal } from '../../kernel/tls/peer-name.ts';
import type { AuthConfig } from './config.ts';
import { allValues, extraValues, firstValue, type HeaderValues } from './headers.ts';

export type TrustSource = 'requestheader' | 'virtualization-ca';

/** Why a presented certificate was not accepted (peer.ts). */
export type PeerProblem = 'untrusted' | 'expired' | 'not-yet-valid' | 'not-for-client-auth';

export interface PeerFacts<S extends string = TrustSource> {
  /** The bundle that verified the peer's certificate, or undefined when none did (or none was sent). */
  readonly verifiedBy: S | undefined;
  readonly commonName: string | undefined;
  /** Set when a certificate was presented but not accepted. */
  readonly problem?: PeerProblem | undefined;
}

export interface Identity {
  readonly user: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
  readonly uid?: string;
}

export type AuthResult =
  | { readonly ok: true; readonly identity: Identity; readonly via: TrustSource }
  | { readonly ok: false; readonly code: 401; readonly message: string };

export const PROBLEM_TEXT: Readonly<Record<PeerProblem, string>> = {
  untrusted: 'it is not signed by a CA trusted for proxied requests',
  expired: 'it has expired',
  'not-yet-valid': 'it is not valid yet',
  'not-for-client-auth': 'its extended key usage does not allow client authentication',
};

function refuse(message: string): AuthResult {
  return { ok: false, code: 401, message };
}

/** Why the certificate may not vouch for headers, or undefined when it may. */
function certificateRefusal(peer: PeerFacts, config: AuthConfig): string | undefined {
  switch (peer.verifiedBy) {
    case undefined:
      if (peer.problem === undefined) return 'Unauthorized: a client certificate is required';
      return `Unauthorized: the client certificate is not accepted: ${PROBLEM_TEXT[peer.problem]}`;
    case 'requestheader': {
      // Kubernetes' rule: an empty requestheader-allowed-names accepts any certificate of that CA.
      const names = config.requestHeader.allowedNames;
      return names.length === 0
        ? undefined
        : nameRefusal(peer.commonName, names, 'requestheader-allowed-names');
    }
    case 'virtualization-ca': {
      const trust = config.virtualization;
      if (trust === undefined) return 'Unauthorized';
      return nameRefusal(peer.commonName, trust.allowedNames, trust.namesFrom);
    }
  }
}

/** The identity the request acts for, or a 401 refusal saying why. */
export function identify(peer: PeerFacts, auth: AuthConfig, headers: HeaderValues): AuthResult {
  const refusal = certificateRefusal(peer, auth);
  if (refusal !== undefined || peer.verifiedBy === undefined) return refuse(refusal ?? 'Unauthorized');
  const config = auth.requestHeader;
  const user = firstValue(headers, config.usernameHeaders);
  if (user === undefined) {
    return refuse(
      `Unauthorized: the client certificate is accepted but no user name header (${config.usernameHeaders.join(', ')}) is set`,
    );
  }
  const uid = firstValue(headers, config.uidHeaders);
  const identity: Identity = {
    user,
    groups: allValues(headers, config.groupHeaders),
    extra: extraValues(headers, config.extraHeaderPrefixes),
    ...(uid === undefined ? {} : { uid }),
  };
  return { ok: true, identity, via: peer.verifiedBy };
}
