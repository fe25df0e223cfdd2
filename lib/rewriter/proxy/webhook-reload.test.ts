// The webhook proxy's TLS files rotated on disk while it serves: its serving certificate reaches new
// connections, and a webhook server that moved to a new CA is reached with the new CA and client certificate.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import type { PemWatch } from '../../kernel/tls/pem-watch.ts';
import { httpsCall } from '../../kernel/tls/testing/https.ts';
import { WEBHOOKS } from '../../kubevirt/webhooks.ts';
import { KUBEVIRT } from '../../rename/testing/synthetic-rules.ts';
import { rewriterMetrics } from './metrics.ts';
import { startWebhookProxy, type WebhookProxy } from './webhook.ts';
import { watchWebhookTls, type WebhookTlsFiles } from './webhook-reload.ts';

let pki: Record<string, TestPem>;
let upstream: Server;
let dir: string;
let proxy: WebhookProxy | undefined;
let watches: PemWatch[] = [];

const pem = (name: string): TestPem => pemOf(pki, name);
const server = (name: string): { cert: string; key: string } => ({
  cert: pem(name).cert,
  key: pem(name).key,
});

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'serving-ca', ca: true },
    { name: 'one', cn: 'proxy-one', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'two', cn: 'proxy-two', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'old-ca', cn: 'webhook-ca-old', ca: true },
    { name: 'old-server', cn: 'webhook', issuer: 'old-ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'old-client', cn: 'client-old', issuer: 'old-ca', usage: 'clientAuth' },
    { name: 'new-ca', cn: 'webhook-ca-new', ca: true },
    { name: 'new-server', cn: 'webhook', issuer: 'new-ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'new-client', cn: 'client-new', issuer: 'new-ca', usage: 'clientAuth' },
  ]);
  // The webhook server answers with the name of the client certificate it was shown.
  upstream = createServer({ requestCert: true, rejectUnauthorized: false });
  upstream.on('request', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const peer =
      req.socket instanceof TLSSocket && req.socket.authorized ? req.socket.getPeerCertificate() : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ peer: peer?.subject.CN ?? 'none' }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-webhook-tls-'));
  upstreamMovesTo('old');
});
afterEach(async () => {
  await Promise.all(watches.map((w) => w.close()));
  watches = [];
  await proxy?.close(100);
  proxy = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The webhook server serves a certificate of that CA and trusts only that CA's clients, on new connections. */
function upstreamMovesTo(which: 'old' | 'new'): void {
  upstream.setSecureContext({ ...server(`${which}-server`), ca: pem(`${which}-ca`).cert });
  upstream.closeAllConnections();
}

const files: WebhookTlsFiles = {
  cert: 'tls.crt',
  key: 'tls.key',
  upstreamCa: 'upstream-ca.crt',
  upstreamClient: { cert: 'client.crt', key: 'client.key' },
};
const at = (f: string): string => join(dir, f);

async function writeFiles(serving: string, side: 'old' | 'new'): Promise<void> {
  await writeFile(at(files.key), pem(serving).key);
  await writeFile(at(files.cert), pem(serving).cert);
  await writeFile(at('upstream-ca.crt'), pem(`${side}-ca`).cert);
  await writeFile(at('client.key'), pem(`${side}-client`).key);
  await writeFile(at('client.crt'), pem(`${side}-client`).cert);
}

async function start(withClient: boolean): Promise<{ lines: Record<string, unknown>[] }> {
  await writeFiles('one', 'old');
  const { log, lines } = memoryLogger();
  const client = withClient ? server('old-client') : undefined;
  const p = await startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    ...server('one'),
    upstream: `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    upstreamCa: pem('old-ca').cert,
    upstreamClient: client,
    index: KUBEVIRT,
    metrics: rewriterMetrics(new Registry()),
    log,
    maxBodyBytes: 1 << 20,
    keepAliveTimeout: 10,
  });
  proxy = p;
  const named: WebhookTlsFiles = {
    cert: at(files.cert),
    key: at(files.key),
    upstreamCa: at('upstream-ca.crt'),
    upstreamClient: withClient ? { cert: at('client.crt'), key: at('client.key') } : undefined,
  };
  watches = watchWebhookTls({
    files: named,
    serving: server('one'),
    upstream: { ca: pem('old-ca').cert, client },
    proxy: p,
    log,
    intervalMs: 30,
  });
  return { lines };
}

/** The SHA-256 fingerprint of the certificate a new connection to the proxy is served. */
function servedFingerprint(): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: proxy?.port ?? 0, ca: pem('ca').cert }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.destroy();
    });
    s.on('error', reject);
  });
}

const fingerprint = (name: string): string => new X509Certificate(pem(name).cert).fingerprint256;

/** A review through the proxy: the status, and the client certificate the webhook server saw. */
async function review(): Promise<{ status: number; peer?: string }> {
  const r = await httpsCall(new URL(`https://127.0.0.1:${proxy?.port ?? 0}${WEBHOOKS.vmMutate.path}`), {
    method: 'POST',
    ca: pem('ca').cert,
    body: '{}',
  });
  return r.status === 200
    ? { status: 200, ...(JSON.parse(r.text) as { peer: string }) }
    : { status: r.status };
}

const refused = 'TLS files changed but unusable; keeping the ones in use';

describe('the webhook proxy with its TLS files watched', () => {
  it('serves a rotated certificate to new connections, and keeps it when a broken pair follows', async () => {
    const { lines } = await start(true);
    expect(await servedFingerprint()).toBe(fingerprint('one'));
    await writeFiles('two', 'old');
    await waitFor(async () => (await servedFingerprint()) === fingerprint('two'), 'the rotated certificate');
    await writeFile(at(files.key), pem('one').key);
    await waitFor(() => lines.some((l) => l['msg'] === refused), 'the broken pair refused');
    expect(await servedFingerprint()).toBe(fingerprint('two'));
    expect(JSON.stringify(lines)).not.toContain('BEGIN');
  });

  it('reaches a webhook server that moved to a new CA once the CA and client certificate files follow', async () => {
    await start(true);
    expect(await review()).toEqual({ status: 200, peer: 'client-old' });
    upstreamMovesTo('new');
    expect((await review()).status).toBe(502);
    await writeFiles('one', 'new');
    await waitFor(async () => (await review()).peer === 'client-new', 'the new client certificate shown');
  });

  it('trusts a rotated CA file alone when it shows no client certificate', async () => {
    await start(false);
    expect(await review()).toEqual({ status: 200, peer: 'none' });
    upstreamMovesTo('new');
    await writeFiles('one', 'new');
    await waitFor(async () => (await review()).status === 200, 'the new CA trusted');
  });
});
