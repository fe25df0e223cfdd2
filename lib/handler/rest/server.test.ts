// The REST server over real TLS on 127.0.0.1:0 with a fake resolver: a unix echo server stands in for the
// VMI's serial socket, a recording fake for its launcher.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { newRegistry } from '../../kernel/metrics/registry.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import type { CmdResult } from '../../rpc/index.ts';
import { noCommandSocket, noUnixSocket } from './errors.ts';
import type { RestResolver, LifecycleLauncher } from './resolve.ts';
import { DEFAULT_CLIENT_COMMON_NAME, startRestServer, type RestServer, type RestTls } from './server.ts';
import { call, openStream, StreamReader, vmiPath, type Dial } from './testing/client.ts';
import { CLIENT_CN, makeRestPki, type RestPki, type Pem } from './testing/pki.ts';

const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'vm1', namespace: 'ns1', uid: 'uid-1' },
  spec: { domain: { devices: {} } },
} as VirtualMachineInstance;
const noLauncher = { ...vmi, metadata: { ...vmi.metadata, name: 'bare', uid: 'uid-2' } };

let pki: RestPki;
let dir: string;
let echo: Server;
const echoed: Socket[] = [];
const calls: string[] = [];

const ok = (what: string): Promise<CmdResult> => {
  calls.push(what);
  return Promise.resolve({ success: true, message: '' });
};
const launcher: LifecycleLauncher = {
  vmiCommand: (m) => ok(m),
  freezeVirtualMachine: (_v, s) => ok(`freeze ${s}`),
  getGuestInfo: () => Promise.resolve({ success: true, message: '', payload: { hostname: 'g1' } }),
  getUsers: () => Promise.resolve({ success: true, message: '', payload: [] }),
  getFilesystems: () => Promise.resolve({ success: true, message: '', payload: [] }),
};
const resolver: RestResolver = {
  vmi: (ns, name) => [vmi, noLauncher].find((v) => v.metadata.namespace === ns && v.metadata.name === name),
  launcher: (v) => Promise.resolve(v === vmi ? launcher : noCommandSocket(v.metadata.uid ?? '', 500)),
  socket: (v, kind) =>
    v === vmi ? { root: dir, rel: ['serial'] } : noUnixSocket(join(dir, `${kind}-missing`)),
  portForwardSocket: () => noUnixSocket(join(dir, 'portforward-missing')),
};

beforeAll(async () => {
  pki = await makeRestPki();
  dir = mkdtempSync(join(tmpdir(), 'kv-console-'));
  echo = createServer((s) => {
    echoed.push(s);
    s.on('error', () => undefined);
    s.write('hello from the guest\n');
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(join(dir, 'serial'), r));
}, 30_000);
afterAll(async () => {
  for (const s of echoed) s.destroy();
  await new Promise<void>((r) => {
    echo.close(() => {
      r();
    });
  });
  rmSync(dir, { recursive: true, force: true });
});

let server: RestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface StartExtra {
  pingIntervalMs?: number;
  requiredClientCommonName?: string;
  tls?: RestTls;
  tlsReloadIntervalMs?: number;
}

async function start({ tls, ...extra }: StartExtra = {}) {
  const registry = newRegistry({ defaultMetrics: false });
  const { log, lines } = memoryLogger('virt-handler');
  server = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: tls ?? { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver,
    log,
    registry,
    ...extra,
  });
  const dial = (client: RestPki['client'] | 'none' = pki.client): Dial => ({
    port: server?.port ?? 0,
    ca: pki.ca.cert,
    client: client === 'none' ? undefined : client,
  });
  return { dial, registry, lines };
}

const console1 = vmiPath('ns1', 'vm1', 'console');
const fingerprint = (p: Pem): string => new X509Certificate(p.cert).fingerprint256;

/** The fingerprint of the certificate a fresh TLS connection is served (whatever the client trusts). */
function servedFingerprint(port: number, client: Pem): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ...client, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.destroy();
    });
    s.on('error', reject);
  });
}

describe('REST server TLS', () => {
  it('refuses a client without a certificate or with one from another CA, before any HTTP', async () => {
    const { dial, lines } = await start();
    const refused = async (p: Promise<unknown>): Promise<string> => {
      const err = await p.then(
        () => new Error('answered'),
        (e: unknown) => e as Error & { code?: string },
      );
      return (err as { code?: string }).code ?? err.message;
    };
    // A TLS alert or a reset (which one depends on when the server's alert lands), never an HTTP answer.
    const TLS_REFUSAL =
      /^(ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED|ERR_SSL_TLSV1_ALERT_UNKNOWN_CA|ECONNRESET)$/;
    const guest = vmiPath('ns1', 'vm1', 'guestosinfo');
    expect(await refused(call(dial('none'), 'GET', guest))).toMatch(TLS_REFUSAL);
    expect(await refused(call(dial(pki.stranger), 'GET', guest))).toMatch(TLS_REFUSAL);
    expect(await refused(openStream(dial(pki.stranger), console1))).toMatch(TLS_REFUSAL);
    expect(await refused(openStream(dial('none'), console1))).toMatch(TLS_REFUSAL);
    expect(lines.filter((l) => l['msg'] === 'console TLS handshake refused').length).toBe(4);
    expect(lines.filter((l) => l['msg'] === 'console request refused')).toEqual([]);
    expect((await call(dial(), 'GET', vmiPath('ns1', 'vm1', 'guestosinfo'))).status).toBe(200);
    // Nothing of the certificates reaches the log.
    expect(JSON.stringify(lines)).not.toContain('BEGIN');
  });

  it('refuses a certificate of its CA with another common name than KubeVirt’s client name by default', async () => {
    const { dial, lines } = await start();
    const guest = vmiPath('ns1', 'vm1', 'guestosinfo');
    await expect(call(dial(pki.otherName), 'GET', guest)).rejects.toThrow();
    await expect(openStream(dial(pki.otherName), console1)).rejects.toThrow();
    expect(lines.filter((l) => l['msg'] === 'console client refused: common name is invalid')).toEqual([
      expect.objectContaining({ expected: CLIENT_CN, cn: 'someone-else' }),
      expect.objectContaining({ expected: CLIENT_CN, cn: 'someone-else' }),
    ]);
    expect(DEFAULT_CLIENT_COMMON_NAME).toBe(CLIENT_CN);
    expect((await call(dial(), 'GET', guest)).status).toBe(200);
    await server?.close();
    // '' accepts any name the CA signed; another name asked for refuses KubeVirt's.
    const any = await start({ requiredClientCommonName: '' });
    expect((await call(any.dial(pki.otherName), 'GET', guest)).status).toBe(200);
    await server?.close();
    const other = await start({ requiredClientCommonName: 'someone-else' });
    expect((await call(other.dial(pki.otherName), 'GET', guest)).status).toBe(200);
    await expect(call(other.dial(), 'GET', guest)).rejects.toThrow();
  });

  it('serves new connections with reloaded TLS material and keeps the old one when the new is unusable', async () => {
    const { dial } = await start();
    const guest = vmiPath('ns1', 'vm1', 'guestosinfo');
    const next = await makeRestPki();
    const tls = { ca: next.ca.cert, cert: next.server.cert, key: next.server.key };
    expect(() => server?.reloadTls({ ...tls, key: next.client.key, keyFile: '/new/tls.key' })).toThrow(
      /\/new\/tls\.key/,
    );
    expect((await call(dial(), 'GET', guest)).status).toBe(200);
    server?.reloadTls(tls);
    await expect(call(dial(), 'GET', guest)).rejects.toThrow();
    const renewed: Dial = { port: server?.port ?? 0, ca: next.ca.cert, client: next.client };
    expect((await call(renewed, 'GET', guest)).status).toBe(200);
  });

  it('serves a rotated CA, certificate and key from its files to new connections; open sessions keep theirs', async () => {
    // A Secret volume's layout: each file a symlink through ..data to the current version's directory.
    const secret = join(dir, 'secret');
    const version = async (name: string, set: RestPki): Promise<void> => {
      await mkdir(join(secret, name), { recursive: true });
      const files = { 'ca.crt': set.ca.cert, 'tls.crt': set.server.cert, 'tls.key': set.server.key };
      for (const [f, pem] of Object.entries(files)) await writeFile(join(secret, name, f), pem);
    };
    await version('..v1', pki);
    await symlink('..v1', join(secret, '..data'));
    for (const f of ['ca.crt', 'tls.crt', 'tls.key']) await symlink(join('..data', f), join(secret, f));
    const tls: RestTls = {
      ...{ ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
      ...{
        caFile: join(secret, 'ca.crt'),
        certFile: join(secret, 'tls.crt'),
        keyFile: join(secret, 'tls.key'),
      },
    };
    const { dial, lines } = await start({ tls, tlsReloadIntervalMs: 50 });
    const served = (client: Pem): Promise<string> => servedFingerprint(server?.port ?? 0, client);
    expect(await served(pki.client)).toBe(fingerprint(pki.server));
    const open = new StreamReader(await openStream(dial(), console1));
    await open.waitFor('hello from the guest', 5_000);

    const next = await makeRestPki();
    await version('..v2', next);
    await symlink('..v2', join(secret, '..data_tmp'));
    await rename(join(secret, '..data_tmp'), join(secret, '..data'));
    await waitFor(
      async () => (await served(next.client)) === fingerprint(next.server),
      'the new certificate',
    );
    const guest = vmiPath('ns1', 'vm1', 'guestosinfo');
    const renewed: Dial = { port: server?.port ?? 0, ca: next.ca.cert, client: next.client };
    expect((await call(renewed, 'GET', guest)).status).toBe(200);
    await expect(call(dial(), 'GET', guest)).rejects.toThrow();
    open.ws.send(Buffer.from('still here'));
    await open.waitFor('still here', 5_000);

    // Half a rotation written in place (a new certificate beside the old key) is not taken.
    const third = await makeRestPki();
    await writeFile(join(secret, '..v2', 'tls.crt'), third.server.cert);
    const refused = 'TLS files changed but unusable; keeping the ones in use';
    await waitFor(() => lines.some((l) => l['msg'] === refused), 'the broken pair refused');
    expect(await served(next.client)).toBe(fingerprint(next.server));
    expect((await call(renewed, 'GET', guest)).status).toBe(200);
    await writeFile(join(secret, '..v2', 'tls.key'), third.server.key);
    await waitFor(async () => (await served(next.client)) === fingerprint(third.server), 'the fixed pair');
    expect(JSON.stringify(lines)).not.toContain('BEGIN');
    open.ws.close(1000);
  }, 30_000);

  it('says which address it cannot listen on', async () => {
    await start();
    const taken = { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key };
    const o = { tls: taken, resolver, log: memoryLogger().log, registry: newRegistry() };
    await expect(startRestServer({ ...o, port: server?.port ?? 0, host: '127.0.0.1' })).rejects.toMatchObject(
      {
        code: 'KV_ERR_CONFIG',
        message: expect.stringContaining(
          `cannot listen on 127.0.0.1:${server?.port ?? 0}: listen EADDRINUSE`,
        ),
      },
    );
  });

  it('names the files of an unusable key, not their contents', async () => {
    const bad = { ca: pki.ca.cert, cert: pki.server.cert, key: pki.client.key, keyFile: '/etc/x/tls.key' };
    await expect(
      startRestServer({ port: 0, tls: bad, resolver, log: memoryLogger().log, registry: newRegistry() }),
    ).rejects.toMatchObject({ code: 'KV_ERR_CONFIG', message: expect.stringContaining('/etc/x/tls.key') });
  });
});

describe('REST server routes', () => {
  it.each<{ method: string; path: string; status: number; text: string; allow?: string }>([
    { method: 'GET', path: '/healthz', status: 404, text: '404: Page Not Found' },
    {
      method: 'GET',
      path: vmiPath('ns1', 'vm1', 'pause'),
      status: 405,
      text: '405: Method Not Allowed',
      allow: 'PUT',
    },
    {
      method: 'GET',
      path: vmiPath('ns1', 'nope', 'guestosinfo'),
      status: 404,
      text: 'VMI ns1/nope does not exist',
    },
    {
      method: 'PUT',
      path: vmiPath('ns1', 'bare', 'pause'),
      status: 500,
      text: 'No command socket found for vmi uid-2',
    },
    { method: 'GET', path: console1, status: 400, text: 'Bad Request\n' },
    {
      method: 'PUT',
      path: vmiPath('ns1', 'vm1', 'freeze'),
      status: 400,
      text: 'Unfreeze timeout in freeze request is not set',
    },
  ])('$method $path answers $status $text', async ({ method, path, status, text, allow }) => {
    const { dial } = await start();
    const r = await call(dial(), method, path);
    expect({ status: r.status, text: r.text, allow: r.headers['allow'] }).toEqual({ status, text, allow });
  });

  it('runs commands and queries on the launcher and counts every answer', async () => {
    const { dial, registry } = await start();
    calls.length = 0;
    expect((await call(dial(), 'PUT', vmiPath('ns1', 'vm1', 'pause'))).status).toBe(202);
    const freeze = await call(dial(), 'PUT', vmiPath('ns1', 'vm1', 'freeze'), '{"unfreezeTimeout":"5m0s"}');
    expect(freeze.status).toBe(202);
    expect(calls).toEqual(['pauseVirtualMachine', 'freeze 300']);
    const info = await call(dial(), 'GET', vmiPath('ns1', 'vm1', 'guestosinfo'));
    expect([info.status, info.headers['content-type'], JSON.parse(info.text)]).toEqual([
      200,
      'application/json',
      { hostname: 'g1' },
    ]);
    const users = await call(dial(), 'GET', vmiPath('ns1', 'vm1', 'userlist'));
    expect(JSON.parse(users.text)).toEqual({ metadata: {}, items: [] });
    await call(dial(), 'GET', '/nowhere');
    const text = await registry.metrics();
    expect(text).toContain('kubevirt_virt_handler_rest_requests_total{route="pause",code="202"} 1');
    expect(text).toContain('kubevirt_virt_handler_rest_requests_total{route="guestosinfo",code="200"} 1');
    expect(text).toContain('kubevirt_virt_handler_rest_requests_total{route="unknown",code="404"} 1');
  });
});

describe('REST server streams', () => {
  it('relays bytes both ways in binary frames of at most 10 KiB, ignoring text frames', async () => {
    const { dial, registry } = await start();
    const ws = await openStream(dial(), console1);
    expect(ws.protocol).toBe('plain.kubevirt.io');
    const r = new StreamReader(ws);
    await r.waitFor('hello from the guest\n', 5_000);
    ws.send('ignored text frame');
    const big = Buffer.alloc(25_000, 'x');
    ws.send(Buffer.concat([Buffer.from('typed:'), big, Buffer.from(':end')]));
    await r.waitFor(':end', 5_000);
    expect(r.text()).toBe(`hello from the guest\ntyped:${big.toString()}:end`);
    expect(Math.max(...r.frameSizes)).toBeLessThanOrEqual(10_240);
    expect(await registry.metrics()).toContain('kubevirt_virt_handler_console_sessions{kind="console"} 1');
    ws.close(1000);
    expect((await r.closed).code).toBe(1000);
    await waitFor(
      async () => (await registry.metrics()).includes('sessions{kind="console"} 0'),
      'no session',
    );
  });

  it('refuses a stream whose socket is missing with KubeVirt’s 400, an unknown VMI with 404', async () => {
    const { dial } = await start();
    await expect(openStream(dial(), vmiPath('ns1', 'bare', 'vnc'))).rejects.toMatchObject({
      status: 400,
      text: `stat ${join(dir, 'vnc-missing')}: no such file or directory`,
    });
    await expect(openStream(dial(), vmiPath('ns1', 'gone', 'console'))).rejects.toMatchObject({
      status: 404,
      text: 'VMI ns1/gone does not exist',
    });
  });

  it('refuses a second console while one is open (409), and serves the next once it is closed', async () => {
    const { dial } = await start();
    const first = new StreamReader(await openStream(dial(), console1));
    await first.waitFor('hello', 5_000);
    await expect(openStream(dial(), console1)).rejects.toMatchObject({
      status: 409,
      text:
        'Active console connection. Request denied: VMI ns1/vm1 has a console session open; close it first ' +
        '(one whose client went away is released within 60 s)',
    });
    // The open session is untouched.
    first.ws.send(Buffer.from('still here'));
    await first.waitFor('still here', 5_000);
    first.ws.close(1000);
    await first.closed;
    const next = await waitFor(
      () => openStream(dial(), console1).catch(() => undefined),
      'a console once the first is closed',
    );
    next.close(1000);
  });

  it('keeps an open VNC session when the next client asks to preserve it (503), else replaces it', async () => {
    const { dial } = await start();
    const vnc = vmiPath('ns1', 'vm1', 'vnc');
    const first = new StreamReader(await openStream(dial(), vnc));
    await first.waitFor('hello', 5_000);
    await expect(openStream(dial(), `${vnc}?preserveSession=true`)).rejects.toMatchObject({
      status: 503,
      text: 'Active VNC connection. Request denied.',
    });
    first.ws.send(Buffer.from('alive'));
    await first.waitFor('alive', 5_000);
    const second = new StreamReader(await openStream(dial(), `${vnc}?preserveSession=nope`));
    expect((await first.closed).code).toBe(1001);
    second.ws.close(1000);
    await second.closed;
  });

  it('pings the client and ends a session whose pong is overdue, which frees the console', async () => {
    const { dial, lines } = await start({ pingIntervalMs: 100 });
    const mute = new StreamReader(await openStream(dial(), console1, { autoPong: false }));
    expect((await mute.closed).code).toBe(1006);
    const live = new StreamReader(
      await waitFor(() => openStream(dial(), console1).catch(() => undefined), 'the console freed'),
    );
    await new Promise((r) => setTimeout(r, 450));
    live.ws.close(1000);
    await live.closed;
    const ended = (): Record<string, unknown>[] => lines.filter((l) => l['msg'] === 'console session ended');
    const ends = await waitFor(() => ended().length === 2 && ended(), 'both session ends logged');
    expect(ends.map((l) => l['reason'])).toEqual(['pong-overdue', 'client-closed']);
    expect(ends[1]?.['pongs']).toBeGreaterThanOrEqual(3);
  });

  it('ends the open sessions when the server closes', async () => {
    const { dial } = await start();
    const r = new StreamReader(await openStream(dial(), console1));
    await r.waitFor('hello', 5_000);
    await server?.close();
    server = undefined;
    expect(await r.closed).toEqual({ code: 1001, reason: 'server shutting down' });
  });
});
