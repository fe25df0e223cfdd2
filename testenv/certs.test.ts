import { afterAll, describe, expect, it } from '@jest/globals';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCerts } from './certs.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-certs-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cert = (path: string): X509Certificate => new X509Certificate(readFileSync(path));

describe('ensureCerts', () => {
  it('issues the serving, admin and front-proxy certs from their CAs', async () => {
    const c = await ensureCerts(dir);
    const ca = cert(c.ca.cert);
    const fpCa = cert(c.frontProxyCa.cert);
    expect(ca.ca).toBe(true);

    const serving = cert(c.serving.cert);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.subjectAltName).toBe(
      'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.96.0.1, DNS:localhost, DNS:kubernetes, ' +
        'DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local',
    );
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');

    const admin = cert(c.admin.cert);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(admin.subject).toBe('O=system:masters\nCN=admin');

    const fp = cert(c.frontProxyClient.cert);
    expect(fp.verify(fpCa.publicKey)).toBe(true);
    expect(fp.verify(ca.publicKey)).toBe(false);
    expect(fp.subject).toBe('CN=front-proxy-client');

    const sa = createPrivateKey(readFileSync(c.serviceAccount.privateKey));
    expect(sa.asymmetricKeyType).toBe('rsa');
    expect(readFileSync(c.serviceAccount.publicKey, 'utf8')).toContain('BEGIN PUBLIC KEY');
  });

  it('reuses a complete set instead of issuing new certificates', async () => {
    const c = await ensureCerts(dir);
    const before = statSync(c.ca.cert).mtimeMs;
    const again = await ensureCerts(dir);
    expect(again).toEqual(c);
    expect(statSync(again.ca.cert).mtimeMs).toBe(before);
  });

  it('issues the serving certificate again, from the same CA, for an address it does not name', async () => {
    const c = await ensureCerts(dir);
    const caBefore = readFileSync(c.ca.cert, 'utf8');
    expect(cert(c.serving.cert).checkIP('10.247.0.1')).toBeUndefined();
    await ensureCerts(dir, ['10.247.0.1']);
    const serving = cert(c.serving.cert);
    expect(serving.checkIP('10.247.0.1')).toBe('10.247.0.1');
    expect(readFileSync(c.ca.cert, 'utf8')).toBe(caBefore);
    expect(serving.verify(cert(c.ca.cert).publicKey)).toBe(true);
  });
});
