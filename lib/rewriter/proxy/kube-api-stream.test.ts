import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import {
  IG,
  INT,
  internalVmi,
  internalVmiList,
  originalVmi,
  originalVmiList,
} from '../../rename/testing/objects.ts';
import { call, CLIENT_TOKEN, startHarness, type Harness } from './testing/harness.ts';

const VMIS = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** Resolves with the upstream's response object of the next request (the test writes the events). */
function nextUpstreamResponse(): Promise<ServerResponse> {
  return new Promise((resolve) => {
    h.upstream.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      resolve(res);
    };
  });
}

/** Reads a streamed body line by line. */
class LineReader {
  private buf = '';
  private readonly it: AsyncIterator<Buffer>;
  constructor(body: AsyncIterable<Buffer>) {
    this.it = body[Symbol.asyncIterator]();
  }
  async next(): Promise<string | undefined> {
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl !== -1) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        return line;
      }
      const r = await this.it.next();
      if (r.done === true) return undefined;
      this.buf += r.value.toString('utf8');
    }
  }
}

async function openWatch(
  path: string,
): Promise<{ lines: LineReader; up: ServerResponse; abort: () => void }> {
  const upstream = nextUpstreamResponse();
  const ac = new AbortController();
  const res = await request(`${h.base}${path}`, { dispatcher: h.client, headers: h.auth, signal: ac.signal });
  expect(res.statusCode).toBe(200);
  res.body.on('error', () => undefined);
  return {
    lines: new LineReader(res.body),
    up: await upstream,
    abort: () => {
      ac.abort();
    },
  };
}

const event = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`;

describe('kube-api proxy: watch streams', () => {
  it('delivers each event as it arrives: the client has event 1 before the API server sends event 2', async () => {
    const w = await openWatch(`${VMIS}?watch=true&resourceVersion=5&allowWatchBookmarks=true`);
    expect(h.upstream.last.path).toBe(
      `/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachineinstances`,
    );
    w.up.write(event('ADDED', internalVmi({ name: 'a' })));
    expect(JSON.parse((await w.lines.next()) ?? '')).toEqual({
      type: 'ADDED',
      object: originalVmi({ name: 'a' }),
    });
    w.up.write(event('MODIFIED', internalVmi({ name: 'a', extra: { status: { phase: 'Running' } } })));
    expect(JSON.parse((await w.lines.next()) ?? '')).toEqual({
      type: 'MODIFIED',
      object: originalVmi({ name: 'a', extra: { status: { phase: 'Running' } } }),
    });
    w.up.end();
    expect(await w.lines.next()).toBeUndefined();
  });

  it('keeps the order, restores bookmarks, and leaves out only excluded objects', async () => {
    const w = await openWatch(`/apis/kubevirt.io/v1/watch/namespaces/ns/virtualmachineinstances`);
    const bookmark = {
      kind: 'InternalVirtualizationVirtualMachineInstance',
      apiVersion: `${IG}/v1`,
      metadata: { resourceVersion: '9' },
    };
    // One chunk holding an event split across the next one.
    const text =
      event('ADDED', internalVmi({ name: 'a' })) +
      event('ADDED', originalVmi({ name: 'foreign' })) +
      event('BOOKMARK', bookmark) +
      event('DELETED', internalVmi({ name: 'b' }));
    w.up.write(text.slice(0, text.length - 20));
    w.up.end(text.slice(text.length - 20));
    const got: unknown[] = [];
    for (let l = await w.lines.next(); l !== undefined; l = await w.lines.next()) got.push(JSON.parse(l));
    expect(got).toEqual([
      { type: 'ADDED', object: originalVmi({ name: 'a' }) },
      {
        type: 'BOOKMARK',
        object: {
          kind: 'VirtualMachineInstance',
          apiVersion: 'kubevirt.io/v1',
          metadata: { resourceVersion: '9' },
        },
      },
      { type: 'DELETED', object: originalVmi({ name: 'b' }) },
    ]);
  });

  it('stops the API server watch when the client goes away', async () => {
    const w = await openWatch(`${VMIS}?watch=1`);
    const closed = new Promise<void>((resolve) => w.up.once('close', resolve));
    w.abort();
    await closed;
    expect(w.up.destroyed).toBe(true);
  });

  it('ends open watches when the proxy shuts down', async () => {
    const w = await openWatch(`${VMIS}?watch=true`);
    w.up.write(event('ADDED', internalVmi({ name: 'a' })));
    await w.lines.next();
    await h.proxy.close(50);
    expect(await w.lines.next()).toBeUndefined();
  });
});

describe('kube-api proxy: gzip', () => {
  const gzipped =
    (body: unknown) =>
    (_req: unknown, res: ServerResponse): void => {
      const data = gzipSync(Buffer.from(JSON.stringify(body)));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': data.length,
      });
      res.end(data);
    };

  it('decodes and restores a gzip object', async () => {
    h.upstream.handler = gzipped(internalVmi({ name: 'a' }));
    const r = await call(h, `${VMIS}/a`, { headers: { 'accept-encoding': 'gzip' } });
    expect(h.upstream.last.headers['accept-encoding']).toBe('gzip');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.json()).toEqual(originalVmi({ name: 'a' }));
  });

  it('decodes and restores a gzip list', async () => {
    h.upstream.handler = gzipped(internalVmiList([internalVmi({ name: 'a' })]));
    const r = await call(h, VMIS, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.json()).toEqual(originalVmiList([originalVmi({ name: 'a' })]));
  });

  it('passes a gzip body of a resource without rules through still compressed', async () => {
    const data = gzipSync('{"kind":"LeaseList","items":[]}');
    h.upstream.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(data);
    };
    const res = await request(`${h.base}/apis/coordination.k8s.io/v1/leases`, {
      dispatcher: h.client,
      headers: h.auth,
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(Buffer.from(await res.body.arrayBuffer())).toEqual(data);
  });
});

describe('kube-api proxy: upgrade requests', () => {
  it("pipes an upgraded connection both ways, with the renamed path and the client's own token", async () => {
    let seen: { url?: string; auth?: string } = {};
    h.upstream.upgrade = (req, socket) => {
      seen = { url: req.url ?? '', auth: req.headers.authorization ?? '' };
      socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
      socket.pipe(socket);
    };
    const sock = connect(h.proxy.port, '127.0.0.1');
    sock.on('error', () => undefined);
    const received: Buffer[] = [];
    const waitFor = (pred: (s: string) => boolean): Promise<string> =>
      new Promise((resolve) => {
        const check = (): void => {
          const s = Buffer.concat(received).toString('latin1');
          if (pred(s)) resolve(s);
          else
            sock.once('data', (c: Buffer) => {
              received.push(c);
              check();
            });
        };
        check();
      });
    sock.write(
      `POST ${VMIS}/a/portforward?ports=22 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CLIENT_TOKEN}\r\n` +
        'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n',
    );
    const head = await waitFor((s) => s.includes('\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    sock.write(Buffer.from([0, 1, 2, 255]));
    sock.write('ping');
    const all = await waitFor((s) => s.endsWith('ping'));
    expect(Buffer.from(all.slice(all.indexOf('\r\n\r\n') + 4), 'latin1')).toEqual(
      Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from('ping')]),
    );
    expect(seen).toEqual({
      url: `/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachineinstances/a/portforward?ports=22`,
      auth: `Bearer ${CLIENT_TOKEN}`,
    });
    sock.destroy();
  });

  it('answers an upgrade with 503 when the API server is down', async () => {
    const dead = await startHarness({ config: { server: 'http://127.0.0.1:1' } });
    try {
      const sock = connect(dead.proxy.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      sock.on('data', (c: Buffer) => chunks.push(c));
      const ended = new Promise<void>((resolve) =>
        sock.once('close', () => {
          resolve();
        }),
      );
      sock.write(
        `GET /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CLIENT_TOKEN}\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      );
      await ended;
      const text = Buffer.concat(chunks).toString();
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
        kind: 'Status',
        code: 503,
      });
    } finally {
      await dead.close();
    }
  });
});

describe('kube-api proxy: labels in watch selectors', () => {
  it('renames the label selector of a watch', async () => {
    const w = await openWatch(`${VMIS}?watch=true&labelSelector=kubevirt.io%2Fvm+in+(b,a)`);
    expect(h.upstream.last.query.get('labelSelector')).toBe(`${INT}/vm in (a,b)`);
    w.up.end();
  });
});
