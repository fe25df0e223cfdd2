/**
 * The api role's certificates rotated on disk while it runs against the real kube-apiserver: its serving pair
 * rewritten in place and then swapped in through a `..data` symlink is served to the next TLS connection
 * (fingerprints compared) with the client trust it had, a half-written pair leaves the last good one served, and
 * the client certificate it dials a handler with (a stand-in HTTPS handler on loopback, reached through a Node
 * and a Running VMI) is the new one on the next call; a webhook caller's certificate from a CA added to the
 * webhook client CA file is taken on the next connection.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { certPaths } from '../../testenv/certs.ts';
import { testCluster, type TestCluster } from '../../testenv/cluster.ts';
import { VIRTUAL_MACHINE_INSTANCES } from '../kubevirt/index.ts';
import { vmi, withPhase, withVmiCondition } from '../kubevirt/testing/objects.ts';
import { NODES } from '../kernel/kube/index.ts';
import { memoryLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { httpsCall } from '../kernel/tls/testing/https.ts';
import { makeTestPki, pemOf, type TestPem } from '../../testenv/pki.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { WEBHOOK_CLIENT_CN } from './auth/index.ts';
import { runApiRole } from './role.ts';

const CLIENT_CN = 'kubevirt.io:system:client:virt-handler';
const REFUSED = 'TLS files changed but unusable; keeping the ones in use';

let cluster: TestCluster;
let pki: Record<string, TestPem>;
let dir: string;
let handler: Server;
const handlerSaw: string[] = [];
let stop: AbortController;
let running: Promise<void>;
let port = 0;
const logged = memoryLogger('virt-api', 2);
let frontProxy: TestPem;
const node = (): string => `${cluster.ns}-node`;

const fingerprint = (p: TestPem): string => new X509Certificate(p.cert).fingerprint256;

/** The fingerprint of the certificate a fresh TLS connection to the api is served. */
function served(): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.destroy();
    });
    s.on('error', reject);
  });
}

async function writePems(at: string, files: Record<string, string>): Promise<void> {
  await mkdir(at, { recursive: true });
  for (const [f, pem] of Object.entries(files)) await writeFile(join(at, f), pem);
}

/** guestosinfo of the test's VMI as an admin through the front proxy: the api forwards it to the handler. */
const guestOsInfo = (): ReturnType<typeof httpsCall> =>
  httpsCall(
    new URL(
      `https://127.0.0.1:${port}/apis/subresources.kubevirt.io/v1/namespaces/${cluster.ns}/virtualmachineinstances/vm1/guestosinfo`,
    ),
    {
      method: 'GET',
      ca: pemOf(pki, 'ca').cert,
      ...frontProxy,
      headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' },
    },
  );

/** The handler client set's version n (client-n with the CA) in `<secret>/..vn`, as the kubelet writes it. */
async function writeClientVersion(secret: string, n: number): Promise<void> {
  const c = pemOf(pki, `client-${n}`);
  await writePems(join(secret, `..v${n}`), {
    'ca.crt': pemOf(pki, 'ca').cert,
    'tls.crt': c.cert,
    'tls.key': c.key,
  });
}

beforeAll(async () => {
  cluster = await testCluster('api-tls', { userAgent: 'kubevirt-ts/api-tls-itest' });
  const serving = (name: string) =>
    ({ name, cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' }) as const;
  const client = (name: string) => ({ name, cn: CLIENT_CN, issuer: 'ca', usage: 'clientAuth' }) as const;
  pki = await makeTestPki([
    { name: 'ca', cn: 'api-tls-test-ca', ca: true },
    serving('serving-1'),
    serving('serving-2'),
    serving('serving-3'),
    serving('serving-4'),
    client('client-1'),
    client('client-2'),
    { name: 'handler', cn: 'virt-handler', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'ca-2', cn: 'api-tls-test-ca-2', ca: true },
    { name: 'rewriter-2', cn: WEBHOOK_CLIENT_CN, issuer: 'ca-2', usage: 'clientAuth' },
  ]);
  const fp = certPaths(dirname(process.env['KUBECONFIG'] ?? '')).frontProxyClient;
  frontProxy = { cert: readFileSync(fp.cert, 'utf8'), key: readFileSync(fp.key, 'utf8') };

  dir = await mkdtemp(join(tmpdir(), 'kv-api-tls-'));
  const first = pemOf(pki, 'serving-1');
  await writePems(join(dir, 'serving'), { 'tls.crt': first.cert, 'tls.key': first.key });
  await writePems(join(dir, 'webhook-ca'), { 'ca-bundle': pemOf(pki, 'ca').cert });
  // The handler client set as a Secret volume lays it out: each file a symlink through ..data.
  const secret = join(dir, 'handler-client');
  await writeClientVersion(secret, 1);
  await symlink('..v1', join(secret, '..data'));
  for (const f of ['ca.crt', 'tls.crt', 'tls.key']) await symlink(join('..data', f), join(secret, f));

  handler = createServer(
    { ...pemOf(pki, 'handler'), ca: pemOf(pki, 'ca').cert, requestCert: true, rejectUnauthorized: true },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hostname":"g1"}');
    },
  );
  // The api dials each call afresh: one connection per call, each with the client certificate it showed.
  handler.on('secureConnection', (s: TLSSocket) => {
    handlerSaw.push(s.getPeerCertificate().fingerprint256);
  });
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
  await cluster.direct.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: node() } });
  cluster.onClose(() => cluster.direct.delete(NODES, node()).then(() => undefined));
  await cluster.direct.patch(
    NODES,
    node(),
    { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] } },
    { type: 'merge', subresource: 'status' },
  );
  const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  const running1 = vmi(withPhase('Running'), withVmiCondition('AgentConnected', 'True'));
  await kv.create(VIRTUAL_MACHINE_INSTANCES, {
    ...running1,
    metadata: { name: 'vm1', namespace: cluster.ns },
    status: { ...running1.status, nodeName: node() },
  });

  stop = new AbortController();
  running = runApiRole(
    {
      config: cluster.config,
      port: 0,
      host: '127.0.0.1',
      tls: first,
      webhookClients: { caPem: pemOf(pki, 'ca').cert, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: {
        port: (handler.address() as AddressInfo).port,
        tls: {
          ca: Buffer.from(pemOf(pki, 'ca').cert),
          cert: Buffer.from(pemOf(pki, 'client-1').cert),
          key: Buffer.from(pemOf(pki, 'client-1').key),
        },
      },
      tlsFiles: {
        serving: { cert: join(dir, 'serving', 'tls.crt'), key: join(dir, 'serving', 'tls.key') },
        handlerClient: {
          ca: join(secret, 'ca.crt'),
          cert: join(secret, 'tls.crt'),
          key: join(secret, 'tls.key'),
        },
        webhookClientCa: join(dir, 'webhook-ca', 'ca-bundle'),
      },
      tlsReloadIntervalMs: 100,
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log: logged.log,
    },
    stop.signal,
  );
  port = await waitFor(
    () => logged.lines.find((l) => l['msg'] === 'api listening')?.['port'] as number | undefined,
    'the api listening',
    { timeoutMs: 30_000 },
  );
}, 120_000);

afterAll(async () => {
  stop.abort();
  await running;
  await new Promise<void>((r) => {
    handler.close(() => {
      r();
    });
    handler.closeAllConnections();
  });
  await rm(dir, { recursive: true, force: true });
  await cluster.close();
}, 60_000);

describe('the api with its certificate files rotated', () => {
  it('serves a serving pair rewritten in place, then one swapped in, to new connections with its client trust', async () => {
    expect(await served()).toBe(fingerprint(pemOf(pki, 'serving-1')));
    const second = pemOf(pki, 'serving-2');
    await writePems(join(dir, 'serving'), { 'tls.crt': second.cert, 'tls.key': second.key });
    await waitFor(async () => (await served()) === fingerprint(second), 'the rewritten pair served');
    // The front proxy's CA is still trusted: the request reaches the handler.
    expect(await guestOsInfo()).toMatchObject({ status: 200, text: '{"hostname":"g1"}' });

    // The same directory turned into a Secret volume's layout, swapped to the third pair.
    const third = pemOf(pki, 'serving-3');
    const secret = join(dir, 'serving');
    await writePems(join(secret, '..v3'), { 'tls.crt': third.cert, 'tls.key': third.key });
    await symlink('..v3', join(secret, '..data'));
    for (const f of ['tls.crt', 'tls.key']) {
      await symlink(join('..data', f), join(secret, `${f}.tmp`));
      await rename(join(secret, `${f}.tmp`), join(secret, f));
    }
    await waitFor(async () => (await served()) === fingerprint(third), 'the swapped-in pair served');

    // Half a rotation: the fourth certificate beside the third key is refused; the third stays.
    const refusals = (): number =>
      logged.lines.filter((l) => l['msg'] === REFUSED && l['tls'] === 'serving').length;
    const before = refusals();
    await writeFile(join(secret, '..v3', 'tls.crt'), pemOf(pki, 'serving-4').cert);
    await waitFor(() => refusals() > before, 'the half-rotated pair refused');
    expect(await served()).toBe(fingerprint(third));
    expect(await guestOsInfo()).toMatchObject({ status: 200 });
  });

  it('dials the handler with a rotated client certificate on the next call', async () => {
    expect(await guestOsInfo()).toMatchObject({ status: 200 });
    expect(handlerSaw.at(-1)).toBe(fingerprint(pemOf(pki, 'client-1')));
    const secret = join(dir, 'handler-client');
    await writeClientVersion(secret, 2);
    await symlink('..v2', join(secret, '..data_tmp'));
    await rename(join(secret, '..data_tmp'), join(secret, '..data'));
    await waitFor(
      () => logged.lines.some((l) => l['msg'] === 'TLS files reloaded' && l['tls'] === 'handler client'),
      'the handler client set reloaded',
    );
    expect(await guestOsInfo()).toMatchObject({ status: 200 });
    expect(handlerSaw.at(-1)).toBe(fingerprint(pemOf(pki, 'client-2')));
    expect(JSON.stringify(logged.lines)).not.toContain('BEGIN');
  });

  it('takes a webhook caller whose CA was added to the webhook client CA file, on the next connection', async () => {
    const review = (): ReturnType<typeof httpsCall> =>
      httpsCall(new URL(`https://127.0.0.1:${port}/virtualmachines-validate`), {
        method: 'POST',
        ca: pemOf(pki, 'ca').cert,
        ...pemOf(pki, 'rewriter-2'),
        body: '{}',
      });
    const before = await review();
    expect(before.status).toBe(401);
    expect(before.text).toContain('not signed by the webhook client CA');
    const bundle = `${pemOf(pki, 'ca').cert}${pemOf(pki, 'ca-2').cert}`;
    await writePems(join(dir, 'webhook-ca'), { 'ca-bundle': bundle });
    const after = await waitFor(
      async () => {
        const r = await review();
        return r.status !== 401 && r;
      },
      'the added CA taken',
      { timeoutMs: 10_000 },
    );
    expect(after.status).toBe(400);
  }, 60_000);
});
