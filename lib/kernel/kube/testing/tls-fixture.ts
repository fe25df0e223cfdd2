/**
 * Test support: a throw-away self-signed certificate made with the openssl CLI, valid for 127.0.0.1 and
 * localhost, usable as server certificate, client certificate and CA at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFixture {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  remove(): void;
}

export function makeTlsFixture(): TlsFixture {
  const dir = mkdtempSync(join(tmpdir(), 'kv-kube-tls-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  return {
    dir,
    certFile,
    keyFile,
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    remove: (): void => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
