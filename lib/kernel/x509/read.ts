/**
 * What the operator reads back from a certificate it stored, through node:crypto's X509Certificate: validity,
 * names, CA flag, extended key usage, issuer, and whether a key is its own. KubeVirt reads the same from Go's
 * parsed x509.Certificate (components.LoadCertificates, NextRotationDeadline).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { KvError } from '../errors/errors.ts';
import type { ExtendedKeyUsage } from './certificate.ts';
import { canonicalIp } from './ip.ts';

export interface CertificateFacts {
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subjectCN: string | undefined;
  readonly issuerCN: string | undefined;
  readonly dnsNames: readonly string[];
  /** IPv4 dotted, IPv6 in its RFC 5952 form (`::1`). */
  readonly ipAddresses: readonly string[];
  readonly isCA: boolean;
  /** The extended key usages this code knows; others are left out. */
  readonly extKeyUsage: readonly ExtendedKeyUsage[];
  /** SHA-256 of the DER, as colon-separated hex (X509Certificate.fingerprint256). */
  readonly fingerprint256: string;
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g;
const EKU_NAMES: Readonly<Record<string, ExtendedKeyUsage>> = {
  '1.3.6.1.5.5.7.3.1': 'serverAuth',
  '1.3.6.1.5.5.7.3.2': 'clientAuth',
};
/** One subjectAltName entry: `DNS:name` or `IP Address:addr`, the value JSON-quoted when Node had to escape it. */
const ALT_NAME = /(DNS|IP Address):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;

/** The PEM blocks of a bundle, in order (text outside them ignored). */
export function certificateBlocks(pem: string): string[] {
  return (pem.match(CERT_BLOCK) ?? []).map((block) => (block.endsWith('\n') ? block : `${block}\n`));
}

function altNames(text: string | undefined): { dns: string[]; ip: string[] } {
  const out = { dns: [] as string[], ip: [] as string[] };
  for (const [, kind, raw = ''] of (text ?? '').matchAll(ALT_NAME)) {
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    if (kind === 'DNS') out.dns.push(value);
    else out.ip.push(canonicalIp(value));
  }
  return out;
}

/** A legacy-object CN: with several, the last one counts, as in Go's pkix.Name. */
function cnOf(field: unknown): string | undefined {
  const cn = Array.isArray(field) ? (field as unknown[])[field.length - 1] : field;
  return typeof cn === 'string' ? cn : undefined;
}

function parse(pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', 'not a PEM certificate', { cause: err });
  }
}

/** The facts of the first certificate in `pem`; KV_ERR_DECODE when it does not parse. */
export function describeCertificate(pem: string): CertificateFacts {
  const cert = parse(pem);
  const names = altNames(cert.subjectAltName);
  const legacy = cert.toLegacyObject();
  return {
    notBefore: cert.validFromDate,
    notAfter: cert.validToDate,
    subjectCN: cnOf(legacy.subject.CN),
    issuerCN: cnOf(legacy.issuer.CN),
    dnsNames: names.dns,
    ipAddresses: names.ip,
    isCA: cert.ca,
    extKeyUsage: ((cert.keyUsage as string[] | undefined) ?? []).flatMap((oid) => EKU_NAMES[oid] ?? []),
    fingerprint256: cert.fingerprint256,
  };
}

/** The key is the certificate's (false when either does not parse). */
export function keyMatchesCertificate(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** The certificate names the CA as its issuer and the CA's key verifies its signature (false when unparsable). */
export function isSignedBy(certPem: string, caPem: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}
