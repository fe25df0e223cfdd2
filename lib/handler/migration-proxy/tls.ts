/**
 * The migration proxies' mutual TLS (kubevirt pkg/util/tls SetupTLSForVirtHandlerServer and
 * SetupTLSForVirtHandlerClients, tag v1.6.2, the configs virt-handler gives its migration proxy manager): both
 * handlers trust the cluster CA that signs the certificates of the console server too. The target shows its
 * server certificate and takes only a caller whose client certificate the CA signed for client use (OpenSSL
 * checks the extended key usage) with the handlers' client name; the source shows that client certificate and
 * takes only a target whose certificate the CA signed for server use with the handlers' server name. Host names
 * are not checked: the certificates name no node, as in KubeVirt.
 */
import { X509Certificate } from 'node:crypto';
import {
  createSecureContext,
  type ConnectionOptions,
  type PeerCertificate,
  type TlsOptions,
  type TLSSocket,
} from 'node:tls';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import { commonNameOf, peerNameRefusal } from '../../kernel/tls/peer-name.ts';
import { HANDLER_CLIENT_CN, HANDLER_SERVER_CN } from '../../kubevirt/certificate-names.ts';

export interface MigrationTls {
  /** The cluster CA (the console server's --client-ca-file): it signs both handlers' certificates. */
  readonly ca: Buffer;
  /** The handler's server certificate and key (the console server's), shown by a target. */
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The handler's client certificate and key (KubeVirt's clientcertificates), shown by a source. */
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
  /** The CN a source must show (default KubeVirt's handler client name); '' any the CA signed. */
  readonly clientCommonName?: string;
  /** The CN a target must show (default KubeVirt's handler server name); '' any the CA signed. */
  readonly serverCommonName?: string;
}

const MIN_VERSION = 'TLSv1.2';

/** Throws KV_ERR_CONFIG when the CA or either pair is unusable (no PEM in the message). */
export function checkMigrationTls(t: MigrationTls): MigrationTls {
  for (const [what, cert, key] of [
    ['server', t.cert, t.key],
    ['client', t.clientCert, t.clientKey],
  ] as const) {
    try {
      createSecureContext({ ca: t.ca, cert, key });
    } catch (err) {
      throw new KvError(
        'KV_ERR_CONFIG',
        `migration proxy TLS: unusable CA, ${what} certificate or key: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
  return t;
}

/** The target listener's options: the CA's client certificates only. */
export function serverOptions(t: MigrationTls): TlsOptions {
  return {
    ca: t.ca,
    cert: t.cert,
    key: t.key,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: MIN_VERSION,
    allowHalfOpen: true,
  };
}

/** Why the caller of this target connection may not tunnel, or undefined when it may. */
export function callerRefusal(socket: TLSSocket, t: MigrationTls): string | undefined {
  const name = t.clientCommonName ?? HANDLER_CLIENT_CN;
  if (name === '') return socket.authorized ? undefined : 'Unauthorized: not signed by the cluster CA';
  return peerNameRefusal(socket, [name], '--client-common-name');
}

/** Refuses a target whose certificate carries another name than the handlers' server name. */
function checkTargetName(t: MigrationTls): (host: string, cert: PeerCertificate) => Error | undefined {
  const name = t.serverCommonName ?? HANDLER_SERVER_CN;
  return (_host, cert) => {
    if (name === '') return undefined;
    const cn = commonNameOf(new X509Certificate(cert.raw));
    if (cn === name) return undefined;
    const shown = cn === undefined ? 'no common name' : `common name ${JSON.stringify(cn)}`;
    return new KvError(
      'KV_ERR_TRANSPORT',
      `the migration target's certificate has ${shown}, not ${JSON.stringify(name)}`,
    );
  };
}

/**
 * The source's options for dialling the target's port. tls.connect takes allowHalfOpen (it builds the
 * TLSSocket with it) though @types/node does not list it.
 */
export function clientOptions(
  t: MigrationTls,
  host: string,
  port: number,
): ConnectionOptions & { readonly allowHalfOpen: boolean } {
  return {
    host,
    port,
    ca: t.ca,
    cert: t.clientCert,
    key: t.clientKey,
    minVersion: MIN_VERSION,
    rejectUnauthorized: true,
    checkServerIdentity: checkTargetName(t),
    allowHalfOpen: true,
  };
}
