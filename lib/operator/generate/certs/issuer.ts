/**
 * Where keys and certificates come from, injected into the planner so its decisions are pure: production
 * uses lib/kernel/x509 with a random serial (KubeVirt's triple package draws one per certificate).
 */
import {
  generateKeyPair,
  issueCertificate,
  randomSerial,
  type CertificateSpec,
  type KeyPair,
  type Signer,
} from '../../../kernel/x509/certificate.ts';

export interface CertificateIssuer {
  readonly newKeyPair: () => KeyPair;
  /** The PEM certificate of `spec`, with a serial of the issuer's choosing. */
  readonly issue: (spec: Omit<CertificateSpec, 'serial'>, signer: Signer) => string;
}

export const X509_ISSUER: CertificateIssuer = {
  newKeyPair: generateKeyPair,
  issue: (spec, signer) => issueCertificate({ ...spec, serial: randomSerial() }, signer),
};
