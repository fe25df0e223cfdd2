/**
 * A TLS caller known by name: its certificate is verified and its subject's common name is one of a list (as
 * Kubernetes' requestheader-allowed-names is checked). The texts are the 401 messages the servers answer; they
 * name the list's flag or key and the certificate's common name, never PEM text.
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/** The subject's common name; with several, the last one counts, as in Go's pkix.Name. */
export function commonNameOf(cert: X509Certificate): string | undefined {
  const cn: unknown = cert.toLegacyObject().subject.CN;
  if (typeof cn === 'string') return cn;
  if (Array.isArray(cn)) {
    const last: unknown = cn[cn.length - 1];
    return typeof last === 'string' ? last : undefined;
  }
  return undefined;
}

/** Why a verified certificate's common name is not accepted by a list (`from` names it), or undefined. */
export function nameRefusal(
  commonName: string | undefined,
  names: readonly string[],
  from: string,
): string | undefined {
  if (commonName !== undefined && names.includes(commonName)) return undefined;
  const shown = commonName === undefined ? 'no common name' : `common name ${JSON.stringify(commonName)}`;
  return `Unauthorized: the client certificate has ${shown}, which is not in ${from}`;
}

/**
 * Why the peer of this connection may not call, or undefined when it may: a certificate OpenSSL verified
 * against the server's `ca` (`requestCert: true`; with `rejectUnauthorized: true` the handshake already refused
 * any other) whose common name is one of `names`. A server that trusts several CAs for different callers
 * verifies the issuer itself and then asks nameRefusal.
 */
export function peerNameRefusal(
  socket: TLSSocket,
  names: readonly string[],
  from: string,
): string | undefined {
  const leaf = socket.getPeerX509Certificate();
  if (leaf === undefined) return 'Unauthorized: a client certificate is required';
  if (!socket.authorized)
    return 'Unauthorized: the client certificate is not accepted: it is not signed by a trusted CA';
  return nameRefusal(commonNameOf(leaf), names, from);
}
