// The health server over real TLS on port 0: /metrics behind an authorizer, the probes open, and a certificate
// rotated on disk served to the next connection.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Counter, Registry } from 'prom-client';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';
import { KvError } from '../errors/errors.ts';
import { memoryLogger } from '../log/log.ts';
import { waitFor } from '../testing/wait.ts';
import { httpsCall, type HttpsAnswer } from '../tls/testing/https.ts';
import type { MetricsAccess, MetricsAuthorizer } from './authorize.ts';
import { startHealthServer, type HealthServer, type HealthTls } from './server.ts';

let pki: Record<string, TestPem>;
let dir: string;
let server: HealthServer | undefined;
let lines: Record<string, unknown>[];

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'metrics-ca', ca: true },
    { name: 'one', cn: 'one', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'two', cn: 'two', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
  ]);
}, 30_000);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-metrics-tls-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Tokens and what the cluster says about them; 'broken' makes the review fail. */
const authorizer: MetricsAuthorizer = {
  authorize: (token): Promise<MetricsAccess> => {
    const answers: Record<string, MetricsAccess> = {
      allowed: { kind: 'allowed', user: 'prometheus' },
      denied: { kind: 'denied', user: 'alice', reason: 'no RBAC policy matched' },
    };
    if (token === 'broken') return Promise.reject(new KvError('KV_ERR_TRANSPORT', 'connection refused'));
    return Promise.resolve(answers[token] ?? { kind: 'unauthenticated' });
  },
};

async function start(): Promise<URL> {
  const one = pemOf(pki, 'one');
  const tls: HealthTls = { ...one, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  await writeFile(tls.certFile, one.cert);
  await writeFile(tls.keyFile, one.key);
  const registry = new Registry();
  new Counter({ name: 'kubevirt_test_scrapes_total', help: 'scrapes', registers: [registry] }).inc(2);
  const logged = memoryLogger();
  lines = logged.lines;
  server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry,
    log: logged.log,
    tls,
    authorizer,
    tlsReloadIntervalMs: 50,
  });
  return new URL(`https://127.0.0.1:${server.port}`);
}

const get = (base: URL, path: string, token?: string): Promise<HttpsAnswer> =>
  httpsCall(new URL(path, base), {
    method: 'GET',
    ca: pemOf(pki, 'ca').cert,
    ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
  });

/** The SHA-256 fingerprint of the certificate a new connection is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca: pemOf(pki, 'ca').cert }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.destroy();
    });
    s.on('error', reject);
  });
}

const fingerprint = (pem: TestPem): string => new X509Certificate(pem.cert).fingerprint256;

describe('the health server over TLS with an authorizer', () => {
  it.each<[string, string | undefined, number, RegExp]>([
    ['no token', undefined, 401, /^Unauthorized$/],
    ['a token the cluster does not know', 'forged', 401, /^Unauthorized$/],
    ['a user RBAC does not allow', 'denied', 403, /^Forbidden: user "alice" may not get \/metrics$/],
    ['an allowed user', 'allowed', 200, /^kubevirt_test_scrapes_total 2$/m],
  ])('answers /metrics for %s with %d', async (_who, token, status, text) => {
    const r = await get(await start(), '/metrics', token);
    expect(r.status).toBe(status);
    expect(r.text).toMatch(text);
    if (status === 401) expect(r.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers 500 and logs the failure, never the token, when the review cannot be made', async () => {
    const r = await get(await start(), '/metrics', 'broken');
    expect(r).toMatchObject({ status: 500, text: 'Authorization failed' });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', reason: 'KV_ERR_TRANSPORT: connection refused' }),
    );
    expect(JSON.stringify(lines)).not.toContain('broken');
  });

  it('keeps /healthz and /readyz open', async () => {
    const base = await start();
    expect(await get(base, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    expect(await get(base, '/readyz')).toMatchObject({ status: 200, text: 'ok' });
  });

  it('serves a certificate rotated on disk to a new connection', async () => {
    const base = await start();
    const port = Number(base.port);
    expect(await servedFingerprint(port)).toBe(fingerprint(pemOf(pki, 'one')));
    const two = pemOf(pki, 'two');
    await writeFile(join(dir, 'tls.key'), two.key);
    await writeFile(join(dir, 'tls.crt'), two.cert);
    await waitFor(async () => (await servedFingerprint(port)) === fingerprint(two), 'the new certificate');
    expect((await get(base, '/metrics', 'allowed')).status).toBe(200);
    expect(JSON.stringify(lines)).not.toContain('BEGIN');
  });

  it('refuses to start with a key that is not the certificate’s, naming the files', async () => {
    const one = pemOf(pki, 'one');
    const tls: HealthTls = {
      ...one,
      key: pemOf(pki, 'two').key,
      certFile: '/x/tls.crt',
      keyFile: '/x/tls.key',
    };
    const o = { port: 0, registry: new Registry(), log: memoryLogger().log, tls };
    await expect(startHealthServer(o)).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: expect.stringContaining('/x/tls.crt and /x/tls.key'),
    });
  });
});
