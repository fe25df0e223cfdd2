import { describe, expect, it } from '@jest/globals';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { makeTestPki, makeTlsFixture, pemOf } from './pki.ts';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

describe('makeTestPki', () => {
  it('signs each entry with its issuer, CAs as CAs, leaves with their usage, names and subject', async () => {
    const pki = await makeTestPki([
      { name: 'root', cn: 'root-ca' },
      { name: 'mid', cn: 'mid-ca', issuer: 'root', ca: true },
      { name: 'server', cn: 'srv', issuer: 'mid', usage: 'serverAuth', sans: 'IP:127.0.0.1,DNS:localhost' },
      { name: 'client', cn: 'admin', o: 'system:masters', issuer: 'root', usage: 'clientAuth' },
    ]);
    const cert = (name: string): X509Certificate => new X509Certificate(pemOf(pki, name).cert);
    expect([cert('root').ca, cert('mid').ca, cert('server').ca, cert('client').ca]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(cert('mid').checkIssued(cert('root'))).toBe(true);
    expect(cert('server').checkIssued(cert('mid'))).toBe(true);
    expect(cert('server').checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert('server').keyUsage).toEqual([SERVER_AUTH]);
    expect(cert('client').keyUsage).toEqual([CLIENT_AUTH]);
    expect(cert('client').subject).toBe('O=system:masters\nCN=admin');
    expect(cert('client').checkPrivateKey(createPrivateKey(pemOf(pki, 'client').key))).toBe(true);
    expect(Date.parse(cert('root').validTo) - Date.now()).toBeLessThan(2 * 86_400_000 + 60_000);
    expect(() => pemOf(pki, 'nobody')).toThrow('test PKI has no entry nobody');
  }, 30_000);

  it('refuses an issuer that is not an earlier entry', async () => {
    await expect(makeTestPki([{ name: 'leaf', cn: 'leaf', issuer: 'ca' }])).rejects.toThrow(
      'test PKI: the issuer ca of leaf is not an earlier entry',
    );
  });
});

describe('makeTlsFixture', () => {
  it('keeps a self-signed localhost certificate on disk until removed', async () => {
    const tls = await makeTlsFixture();
    const cert = new X509Certificate(tls.cert);
    expect(readFileSync(tls.certFile, 'utf8')).toBe(tls.cert);
    expect(readFileSync(tls.keyFile, 'utf8')).toBe(tls.key);
    expect(cert.ca).toBe(true);
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
    tls.remove();
    expect(existsSync(tls.certFile)).toBe(false);
  }, 30_000);
});
