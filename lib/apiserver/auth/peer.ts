/**
 * Which trusted CA bundle verified the client certificate of a TLS connection. The server is created with
 * `requestCert: true, rejectUnauthorized: false` and `ca` = every bundle (trustedCaPems), so a connection
 * without a certificate, or with one no bundle signs, still reaches HTTP and is answered 401 there (as
 * KubeVirt's VerifyClientCertIfGiven does; the aggregator's availability probe sends no certificate).
 *
 * OpenSSL's verdict (`socket.authorized`) must be positive, and then the chain is walked here so the answer
 * names the bundle: from the leaf up through the intermediates the client sent, until a certificate of a
 * bundle issued the current one (name match and signature). Every certificate on that path, the anchor
 * included, must be valid at `now`; a leaf with an extended key usage must allow client authentication.
 * Bundles are tried in order, the request-header CA first.
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { commonNameOf } from '../../kernel/tls/peer-name.ts';
import type { CaBundle } from './ca-bundle.ts';
import type { AuthConfig } from './config.ts';
import type { PeerFacts, PeerProblem, TrustSource } from './identity.ts';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** Intermediates followed above the leaf; real proxy chains have at most one. */
const MAX_DEPTH = 4;

/** Trusted bundles, each with the name a verification reports. */
export type Anchors<S extends string> = readonly (readonly [S, CaBundle])[];

/** The bundles of a config, in the order they are tried. */
function anchorsOf(config: AuthConfig): Anchors<TrustSource> {
  const anchors: [TrustSource, CaBundle][] = [['requestheader', config.requestHeader.ca]];
  if (config.virtualization !== undefined) anchors.push(['virtualization-ca', config.virtualization.ca]);
  return anchors;
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

function timeProblem(certs: readonly X509Certificate[], now: number): PeerProblem | undefined {
  for (const c of certs) {
    if (now < c.validFromDate.getTime()) return 'not-yet-valid';
    if (now > c.validToDate.getTime()) return 'expired';
  }
  return undefined;
}

function allowsClientAuth(leaf: X509Certificate): boolean {
  // Node gives undefined when the certificate has no extended key usage extension (any use is allowed).
  const usages = leaf.keyUsage as readonly string[] | undefined;
  return usages === undefined || usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE);
}

function anchorFor<S extends string>(
  cert: X509Certificate,
  anchors: Anchors<S>,
): [S, X509Certificate] | undefined {
  for (const [source, bundle] of anchors) {
    const ca = bundle.certificates.find((c) => issuedBy(cert, c));
    if (ca !== undefined) return [source, ca];
  }
  return undefined;
}

/** The next certificate up the chain the client sent, when it really issued `cert` and is a CA. */
function parentInChain(cert: X509Certificate): X509Certificate | undefined {
  const parent = cert.issuerCertificate;
  if (parent === undefined || parent.raw.equals(cert.raw) || !parent.ca) return undefined;
  return issuedBy(cert, parent) ? parent : undefined;
}

/** Verification of a leaf (with its chain as Node linked it) against the anchors. */
function verifyChain<S extends string>(
  leaf: X509Certificate,
  anchors: Anchors<S>,
  now: number,
): PeerFacts<S> {
  const commonName = commonNameOf(leaf);
  if (!allowsClientAuth(leaf)) return { verifiedBy: undefined, commonName, problem: 'not-for-client-auth' };
  const path: X509Certificate[] = [leaf];
  let cert: X509Certificate | undefined = leaf;
  while (cert !== undefined && path.length <= MAX_DEPTH + 1) {
    const found = anchorFor(cert, anchors);
    if (found !== undefined) {
      const problem = timeProblem([...path, found[1]], now);
      if (problem !== undefined) return { verifiedBy: undefined, commonName, problem };
      return { verifiedBy: found[0], commonName };
    }
    cert = parentInChain(cert);
    if (cert !== undefined) path.push(cert);
  }
  return { verifiedBy: undefined, commonName, problem: 'untrusted' };
}

/**
 * What verified the peer certificate of this connection, of these anchors. When OpenSSL refused the chain the
 * answer is a refusal whatever the walk finds; the walk then only says why, when it can.
 */
export function peerVerifiedBy<S extends string>(
  socket: TLSSocket,
  anchors: Anchors<S>,
  clock: Clock = realClock,
): PeerFacts<S> {
  const leaf = socket.getPeerX509Certificate();
  if (leaf === undefined) return { verifiedBy: undefined, commonName: undefined };
  const facts = verifyChain(leaf, anchors, clock.now());
  if (socket.authorized || facts.verifiedBy === undefined) return facts;
  return { verifiedBy: undefined, commonName: facts.commonName, problem: 'untrusted' };
}

/** The facts identify() needs about the peer of this connection. */
export function peerFacts(socket: TLSSocket, config: AuthConfig, clock: Clock = realClock): PeerFacts {
  return peerVerifiedBy(socket, anchorsOf(config), clock);
}
