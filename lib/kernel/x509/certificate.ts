/**
 * EC P-256 keys and X.509 v3 certificates signed with ecdsa-with-SHA256: a self-signed CA or a leaf signed by
 * one, with the extensions KubeVirt's certificates carry. Mirrors KubeVirt's pkg/certificates/triple/cert
 * (NewECDSAPrivateKey, NewSelfSignedCACert, NewSignedCert) on top of Go's x509.CreateCertificate.
 */
import {
  X509Certificate,
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import { KvError } from '../errors/errors.ts';
import { issuerParts } from './der-read.ts';
import {
  derBitString,
  derBoolean,
  derDirectoryString,
  derExplicit,
  derIa5String,
  derImplicit,
  derInteger,
  derNamedBits,
  derOctetString,
  derOid,
  derSequence,
  derSet,
  derTime,
} from './der.ts';
import { ipOctets } from './ip.ts';

export interface KeyPair {
  /** PKCS#8 PEM. */
  readonly privateKeyPem: string;
  /** SubjectPublicKeyInfo PEM. */
  readonly publicKeyPem: string;
}

export type ExtendedKeyUsage = 'serverAuth' | 'clientAuth';

export interface CertificateSpec {
  readonly commonName: string;
  readonly organization?: string;
  /** Positive, at most 20 octets (RFC 5280 §4.1.2.2). */
  readonly serial: bigint;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly ca: boolean;
  readonly extKeyUsage: readonly ExtendedKeyUsage[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** The subject's public key (SPKI PEM). */
  readonly publicKeyPem: string;
}

/** Who signs: the subject's own key (self-signed), or a CA by its certificate and key. */
export type Signer =
  | { readonly kind: 'self'; readonly keyPem: string }
  | { readonly kind: 'ca'; readonly certPem: string; readonly keyPem: string };

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** keyUsage bit numbers (RFC 5280 §4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;
const MAX_SERIAL = (1n << 159n) - 1n;

export function generateKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** A random positive 127-bit serial. */
export function randomSerial(): bigint {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return BigInt(`0x${bytes.toString('hex')}`) || 1n;
}

function invalid(message: string): KvError {
  return new KvError('KV_ERR_INVALID', `certificate: ${message}`);
}

/** The SPKI DER of a P-256 public key, refused for any other key. */
function p256Spki(key: KeyObject, what: string): Buffer {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw invalid(`${what} is not an EC P-256 key`);
  }
  return key.export({ type: 'spki', format: 'der' });
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits (a P-256 point is the SPKI's last 65 octets). */
function keyIdOf(spki: Buffer): Buffer {
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function nameOf(spec: Pick<CertificateSpec, 'commonName' | 'organization'>): Buffer {
  const rdn = (oid: string, value: string): Buffer =>
    derSet([derSequence([derOid(oid), derDirectoryString(value)])]);
  return derSequence([
    ...(spec.organization === undefined ? [] : [rdn(OID.organization, spec.organization)]),
    rdn(OID.commonName, spec.commonName),
  ]);
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return derSequence([derOid(oid), ...(critical ? [derBoolean(true)] : []), derOctetString(value)]);
}

function extensionsOf(spec: CertificateSpec, keyId: Buffer, authorityKeyId: Buffer): Buffer {
  const usage = spec.ca
    ? [KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign]
    : [KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment];
  const altNames = [
    ...spec.dnsNames.map((name) => derImplicit(2, derIa5String(name))),
    ...spec.ipAddresses.map((ip) => derImplicit(7, derOctetString(ipOctets(ip)))),
  ];
  const list = [
    extension(OID.keyUsage, true, derNamedBits(usage)),
    ...(spec.extKeyUsage.length === 0
      ? []
      : [extension(OID.extKeyUsage, false, derSequence(spec.extKeyUsage.map((u) => derOid(OID[u]))))]),
    extension(OID.basicConstraints, true, derSequence(spec.ca ? [derBoolean(true)] : [])),
    extension(OID.subjectKeyId, false, derOctetString(keyId)),
    extension(OID.authorityKeyId, false, derSequence([derImplicit(0, derOctetString(authorityKeyId))])),
    ...(altNames.length === 0 ? [] : [extension(OID.subjectAltName, false, derSequence(altNames))]),
  ];
  return derExplicit(3, derSequence(list));
}

function checkSpec(spec: CertificateSpec): void {
  if (spec.commonName === '') throw invalid('the common name is empty');
  if (spec.serial <= 0n || spec.serial > MAX_SERIAL)
    throw invalid('the serial is not a positive 20-octet number');
  if (!(spec.notAfter.getTime() > spec.notBefore.getTime())) throw invalid('notAfter is not after notBefore');
}

interface Issuer {
  readonly name: Buffer;
  readonly keyId: Buffer;
}

/** The issuer's Name and key id; a self-signed certificate's key, or a CA's, must match the signing key. */
function issuerOf(signer: Signer, subject: Buffer, spki: Buffer): Issuer {
  const signingSpki = p256Spki(createPublicKey(signer.keyPem), 'the signing key');
  if (signer.kind === 'self') {
    if (!signingSpki.equals(spki))
      throw invalid('a self-signed certificate must be signed with the subject key');
    return { name: subject, keyId: keyIdOf(spki) };
  }
  const ca = new X509Certificate(signer.certPem);
  if (!ca.ca) throw invalid('the signing certificate is not a CA');
  if (!p256Spki(ca.publicKey, 'the CA key').equals(signingSpki))
    throw invalid("the CA key is not the CA certificate's");
  const parts = issuerParts(ca.raw);
  return { name: parts.subject, keyId: parts.subjectKeyId ?? keyIdOf(signingSpki) };
}

/** The certificate, PEM-encoded: `spec` signed by `signer` (whose subject becomes the issuer). */
export function issueCertificate(spec: CertificateSpec, signer: Signer): string {
  checkSpec(spec);
  const spki = p256Spki(createPublicKey(spec.publicKeyPem), 'the subject key');
  const subject = nameOf(spec);
  const issuer = issuerOf(signer, subject, spki);
  const algorithm = derSequence([derOid(OID.ecdsaWithSha256)]);
  const tbs = derSequence([
    derExplicit(0, derInteger(2)),
    derInteger(spec.serial),
    algorithm,
    issuer.name,
    derSequence([derTime(spec.notBefore), derTime(spec.notAfter)]),
    subject,
    spki,
    extensionsOf(spec, keyIdOf(spki), issuer.keyId),
  ]);
  const signature = sign('sha256', tbs, { key: signer.keyPem, dsaEncoding: 'der' });
  const der = derSequence([tbs, algorithm, derBitString(signature)]);
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n`;
}

const TEMPORARY_VALIDITY_MS = 365 * 24 * 3600 * 1000;

/**
 * A throw-away self-signed serving certificate and its key (PEM), valid for a year from now, for a server that
 * must answer TLS before its own certificate exists (controller-runtime's metrics server makes one when given no
 * files). Nobody can verify it: it only keeps the port speaking TLS.
 */
export function temporaryServingPair(commonName: string, now: Date): { cert: string; key: string } {
  const pair = generateKeyPair();
  const cert = issueCertificate(
    {
      commonName,
      serial: randomSerial(),
      notBefore: now,
      notAfter: new Date(now.getTime() + TEMPORARY_VALIDITY_MS),
      ca: false,
      extKeyUsage: ['serverAuth'],
      dnsNames: [],
      ipAddresses: [],
      publicKeyPem: pair.publicKeyPem,
    },
    { kind: 'self', keyPem: pair.privateKeyPem },
  );
  return { cert, key: pair.privateKeyPem };
}
