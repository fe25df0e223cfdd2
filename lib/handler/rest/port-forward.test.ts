// portforward/{port}/{protocol} on the REST server over real TLS: a unix server stands in for the launcher's
// port-forward socket, speaking its line protocol (lib/rpc/port-forward.ts): port 7 echoes (udp's frames too,
// unchanged), any other refuses.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { newRegistry } from '../../kernel/metrics/registry.ts';
import { answerLine, parseRequestLine, readLine } from '../../rpc/port-forward.ts';
import { noUnixSocket } from './errors.ts';
import type { RestResolver } from './resolve.ts';
import { startRestServer, type RestServer } from './server.ts';
import { openStream, StreamReader, vmiPath, type Dial } from './testing/client.ts';
import { makeRestPki, type RestPki } from './testing/pki.ts';

const vmi = {
  metadata: { name: 'vm1', namespace: 'ns1', uid: 'uid-1' },
  spec: { domain: { devices: {} } },
} as VirtualMachineInstance;
const gone = { ...vmi, metadata: { ...vmi.metadata, name: 'gone', uid: 'uid-2' } };

let pki: RestPki;
let dir: string;
let launcher: Server;
const requests: string[] = [];
const conns: Socket[] = [];
let server: RestServer | undefined;

beforeAll(async () => {
  pki = await makeRestPki();
  dir = mkdtempSync(join(tmpdir(), 'kv-pf-'));
  launcher = createServer((s) => {
    conns.push(s);
    s.on('error', () => undefined);
    void readLine(s, 5000).then((line) => {
      requests.push(line);
      const r = parseRequestLine(line);
      if (r.port !== 7) {
        s.end(answerLine({ ok: false, error: `port ${r.port}: connection refused` }));
        return;
      }
      s.write(answerLine({ ok: true }));
      s.pipe(s);
    });
  });
  await new Promise<void>((r) => launcher.listen(join(dir, 'pf'), r));
}, 30_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  for (const s of conns) s.destroy();
  await new Promise<void>((r) =>
    launcher.close(() => {
      r();
    }),
  );
  rmSync(dir, { recursive: true, force: true });
});

async function dial(): Promise<Dial> {
  const resolver: RestResolver = {
    vmi: (ns, name) => [vmi, gone].find((v) => v.metadata.namespace === ns && v.metadata.name === name),
    launcher: () => Promise.resolve({ status: 500, message: 'no launcher' }),
    socket: () => noUnixSocket('none'),
    portForwardSocket: (v) => (v === vmi ? { root: dir, rel: ['pf'] } : noUnixSocket(join(dir, 'nothing'))),
  };
  server = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver,
    log: nopLogger,
    registry: newRegistry({ defaultMetrics: false }),
  });
  return { port: server.port, ca: pki.ca.cert, client: pki.client };
}

const pf = (name: string, rest: string): string => vmiPath('ns1', name, `portforward/${rest}`);

describe('the handler’s port-forward', () => {
  it('relays a websocket to the guest port the launcher connected, both ways', async () => {
    const d = await dial();
    const ws = await openStream(d, pf('vm1', '7/tcp'));
    const r = new StreamReader(ws);
    ws.send(Buffer.from('ping through the tunnel'), { binary: true });
    expect(await r.waitFor('ping through the tunnel', 5000)).toBe('ping through the tunnel');
    expect(requests.at(-1)).toBe('tcp 7');
    ws.close(1000);
    expect((await r.closed).code).toBe(1000);
  });

  it('sends each udp message as one datagram and each datagram back as one message', async () => {
    const d = await dial();
    const ws = await openStream(d, pf('vm1', '7/udp'));
    const got: string[] = [];
    ws.on('message', (m: Buffer) => got.push(m.toString()));
    ws.send(Buffer.from('first'), { binary: true });
    ws.send(Buffer.from('second datagram'), { binary: true });
    await waitFor(() => got.length === 2, 'two datagrams back', { timeoutMs: 5000, intervalMs: 20 });
    expect(got).toEqual(['first', 'second datagram']);
    expect(requests.at(-1)).toBe('udp 7');
    ws.close(1000);
  });

  it.each([
    ['a port the guest refuses', pf('vm1', '9/tcp'), 500, 'dialing VM: port 9: connection refused'],
    ['a port out of range', pf('vm1', '70000/tcp'), 400, 'invalid port "70000"'],
    ['another protocol', pf('vm1', '7/sctp'), 400, 'invalid protocol "sctp"'],
    ['an unknown VMI', pf('nope', '7/tcp'), 404, 'nope'],
    ['a launcher without the socket', pf('gone', '7/tcp'), 400, 'nothing'],
  ])('answers %s before the upgrade', async (_, path, status, text) => {
    const d = await dial();
    const refused = (await openStream(d, path).then(
      () => undefined,
      (err: unknown) => err,
    )) as { status?: number; text?: string } | undefined;
    expect(refused?.status).toBe(status);
    expect(refused?.text).toContain(text);
  });
});
