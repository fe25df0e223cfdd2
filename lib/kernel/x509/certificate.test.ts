import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeTestPki, pemOf } from '../../../testenv/pki.ts';
import { generateKeyPair, issueCertificate, type CertificateSpec, type KeyPair } from './certificate.ts';
import { describeCertificate, isSignedBy, keyMatchesCertificate } from './read.ts';

const run = promisify(execFile);
const NOT_BEFORE = new Date('2026-01-02T03:04:05Z');
const NOT_AFTER = new Date('2026-02-02T03:04:05Z');
/** openssl verify checks validity at this instant, inside NOT_BEFORE..NOT_AFTER. */
const AT_TIME = String(NOT_BEFORE.getTime() / 1000 + 86_400);

function caSpec(key: KeyPair, over: Partial<CertificateSpec> = {}): CertificateSpec {
  return {
    commonName: 'kubevirt.io@1767323045',
    serial: 1n,
    notBefore: NOT_BEFORE,
    notAfter: NOT_AFTER,
    ca: true,
    extKeyUsage: [],
    dnsNames: [],
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
    ...over,
  };
}

function leafSpec(key: KeyPair, over: Partial<CertificateSpec> = {}): CertificateSpec {
  return {
    commonName: 'virt-api.ns.pod.cluster.local',
    organization: 'kubevirt',
    serial: 0xdeadbeefn,
    notBefore: NOT_BEFORE,
    notAfter: NOT_AFTER,
    ca: false,
    extKeyUsage: ['serverAuth'],
    dnsNames: ['virt-api', 'virt-api.ns', 'virt-api.ns.svc', 'virt-api.ns.svc.cluster.local'],
    ipAddresses: ['127.0.0.1', '::1'],
    publicKeyPem: key.publicKeyPem,
    ...over,
  };
}

interface Ca {
  readonly certPem: string;
  readonly keyPem: string;
}

function makeCa(over: Partial<CertificateSpec> = {}): Ca {
  const key = generateKeyPair();
  const certPem = issueCertificate(caSpec(key, over), { kind: 'self', keyPem: key.privateKeyPem });
  return { certPem, keyPem: key.privateKeyPem };
}

function makeLeaf(ca: Ca, over: Partial<CertificateSpec> = {}): string {
  return issueCertificate(leafSpec(generateKeyPair(), over), { kind: 'ca', ...ca });
}

/** Runs openssl on the PEM texts written to files; its stdout, or its stderr when it fails. */
async function openssl(
  args: readonly string[],
  files: Record<string, string>,
): Promise<{ ok: boolean; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'kv-x509-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const { stdout } = await run(
      'openssl',
      args.map((a) => (a in files ? join(dir, a) : a)),
    );
    return { ok: true, out: stdout };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: unknown }).stderr) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('issueCertificate: a self-signed CA', () => {
  const ca = makeCa({ serial: (1n << 158n) + 7n, notAfter: new Date('2051-06-01T00:00:00Z') });
  const parsed = new X509Certificate(ca.certPem);

  it('is a CA issued by itself, signed by its own key, with the spec as given', () => {
    expect(parsed.ca).toBe(true);
    expect(parsed.subject).toBe('CN=kubevirt.io@1767323045');
    expect(parsed.issuer).toBe(parsed.subject);
    expect(parsed.checkIssued(parsed)).toBe(true);
    expect(parsed.verify(parsed.publicKey)).toBe(true);
    expect(BigInt(`0x${parsed.serialNumber}`)).toBe((1n << 158n) + 7n);
    expect(parsed.validFromDate).toEqual(NOT_BEFORE);
    expect(parsed.validToDate).toEqual(new Date('2051-06-01T00:00:00Z'));
    expect(keyMatchesCertificate(ca.certPem, ca.keyPem)).toBe(true);
  });

  it('reads in openssl with critical CA constraints, CA key usage and key ids', async () => {
    const { ok, out } = await openssl(['x509', '-noout', '-text', '-in', 'ca.pem'], { 'ca.pem': ca.certPem });
    expect(ok).toBe(true);
    expect(out).toMatch(/Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
    expect(out).toMatch(/Basic Constraints: critical\s+CA:TRUE/);
    expect(out).toMatch(/Not After : Jun {2}1 00:00:00 2051 GMT/);
    const ski = /Subject Key Identifier: *\n\s+(\S+)/.exec(out)?.[1];
    expect(ski).toMatch(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/);
    expect(out).toMatch(new RegExp(`Authority Key Identifier: *\\n\\s+(keyid:)?${ski ?? 'none'}`));
    expect(out).not.toContain('Extended Key Usage');
  });
});

describe('issueCertificate: a leaf signed by the CA', () => {
  const ca = makeCa();
  const leafPem = makeLeaf(ca);
  const leaf = new X509Certificate(leafPem);

  it('carries the subject, names, usage and validity, and the CA verifies it', () => {
    expect(leaf.subject).toBe('O=kubevirt\nCN=virt-api.ns.pod.cluster.local');
    expect(leaf.issuer).toBe('CN=kubevirt.io@1767323045');
    expect(leaf.ca).toBe(false);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(leaf.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(leaf.verify(new X509Certificate(makeCa().certPem).publicKey)).toBe(false);
    expect(describeCertificate(leafPem)).toEqual({
      notBefore: NOT_BEFORE,
      notAfter: NOT_AFTER,
      subjectCN: 'virt-api.ns.pod.cluster.local',
      issuerCN: 'kubevirt.io@1767323045',
      dnsNames: ['virt-api', 'virt-api.ns', 'virt-api.ns.svc', 'virt-api.ns.svc.cluster.local'],
      ipAddresses: ['127.0.0.1', '::1'],
      isCA: false,
      extKeyUsage: ['serverAuth'],
      fingerprint256: leaf.fingerprint256,
    });
  });

  it('passes openssl verify as a TLS server, not as a TLS client', async () => {
    const files = { 'ca.pem': ca.certPem, 'leaf.pem': leafPem };
    const verify = (purpose: string): Promise<{ ok: boolean; out: string }> =>
      openssl(['verify', '-attime', AT_TIME, '-purpose', purpose, '-CAfile', 'ca.pem', 'leaf.pem'], files);
    expect(await verify('sslserver')).toEqual({ ok: true, out: expect.stringContaining(': OK') });
    expect(await verify('sslclient')).toEqual({
      ok: false,
      out: expect.stringContaining('unsuitable certificate purpose'),
    });
  });

  it('reads in openssl with leaf key usage, both names and the CA key id as authority', async () => {
    const files = { 'ca.pem': ca.certPem, 'leaf.pem': leafPem };
    const text = await openssl(['x509', '-noout', '-text', '-in', 'leaf.pem'], files);
    const caText = await openssl(['x509', '-noout', '-text', '-in', 'ca.pem'], files);
    expect(text.out).toMatch(/Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text.out).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    expect(text.out).toMatch(/Extended Key Usage: *\n\s+TLS Web Server Authentication\n/);
    expect(text.out).toContain(
      'DNS:virt-api, DNS:virt-api.ns, DNS:virt-api.ns.svc, DNS:virt-api.ns.svc.cluster.local, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    const caSki = /Subject Key Identifier: *\n\s+(\S+)/.exec(caText.out)?.[1] ?? 'none';
    expect(text.out).toMatch(new RegExp(`Authority Key Identifier: *\\n\\s+(keyid:)?${caSki}`));
  });

  it('takes a usage of both kinds', () => {
    const both = describeCertificate(makeLeaf(ca, { extKeyUsage: ['serverAuth', 'clientAuth'] }));
    expect(both.extKeyUsage).toEqual(['serverAuth', 'clientAuth']);
  });
});

describe('issueCertificate with a CA openssl made', () => {
  it('names that CA as issuer by its subject and key id, and openssl verifies the chain', async () => {
    const pki = await makeTestPki([{ name: 'ca', cn: 'Other Root', o: 'Example', ca: true }]);
    const caPem = pemOf(pki, 'ca');
    const ca = { certPem: caPem.cert, keyPem: caPem.key };
    const now = Date.now();
    const leafPem = makeLeaf(ca, { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
    expect(new X509Certificate(leafPem).issuer).toBe('O=Example\nCN=Other Root');
    expect(isSignedBy(leafPem, caPem.cert)).toBe(true);
    const files = { 'ca.pem': caPem.cert, 'leaf.pem': leafPem };
    const verified = await openssl(
      ['verify', '-purpose', 'sslserver', '-CAfile', 'ca.pem', 'leaf.pem'],
      files,
    );
    expect(verified).toEqual({ ok: true, out: expect.stringContaining(': OK') });
  });
});

describe('issueCertificate refusals', () => {
  const ca = makeCa();
  const other = generateKeyPair();
  const leafKey = generateKeyPair();
  const p384 = generateKeyPairSync('ec', {
    namedCurve: 'P-384',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const asCa = { kind: 'ca', ...ca } as const;

  it.each<[string, () => string]>([
    ['an empty common name', () => issueCertificate(leafSpec(leafKey, { commonName: '' }), asCa)],
    ['a zero serial', () => issueCertificate(leafSpec(leafKey, { serial: 0n }), asCa)],
    ['a serial over 20 octets', () => issueCertificate(leafSpec(leafKey, { serial: 1n << 160n }), asCa)],
    ['notAfter at notBefore', () => issueCertificate(leafSpec(leafKey, { notAfter: NOT_BEFORE }), asCa)],
    [
      'a subject key that is not P-256',
      () => issueCertificate(leafSpec(leafKey, { publicKeyPem: p384.publicKey }), asCa),
    ],
    ['a bad IP address', () => issueCertificate(leafSpec(leafKey, { ipAddresses: ['10.0.0'] }), asCa)],
    [
      'a self-signed spec signed by another key',
      () => issueCertificate(caSpec(leafKey), { kind: 'self', keyPem: other.privateKeyPem }),
    ],
    [
      'a CA key that is not the CA certificate’s',
      () => issueCertificate(leafSpec(leafKey), { ...asCa, keyPem: other.privateKeyPem }),
    ],
    [
      'a signing certificate that is no CA',
      () => issueCertificate(leafSpec(other), { ...asCa, certPem: makeLeaf(ca) }),
    ],
  ])('refuses %s with KV_ERR_INVALID', (_name, issue) => {
    expect(issue).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});

describe('reading certificates', () => {
  const ca = makeCa();
  const leafPem = makeLeaf(ca);

  it('refuses text that is no certificate with KV_ERR_DECODE', () => {
    expect(() =>
      describeCertificate('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
    ).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
  });

  it('tells a key that is not the certificate’s, and unparsable input, as no match', () => {
    expect(keyMatchesCertificate(leafPem, ca.keyPem)).toBe(false);
    expect(keyMatchesCertificate(leafPem, 'garbage')).toBe(false);
    expect(keyMatchesCertificate('garbage', ca.keyPem)).toBe(false);
  });

  it('tells a certificate signed by another CA, or a CA that did not sign it', () => {
    expect(isSignedBy(leafPem, ca.certPem)).toBe(true);
    expect(isSignedBy(leafPem, makeCa().certPem)).toBe(false);
    expect(isSignedBy(leafPem, 'garbage')).toBe(false);
  });
});
