import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { FakeClock } from '../clock.ts';
import { KvError, isGone, newStatus } from '../errors/errors.ts';
import { HttpKubeClient } from './client.ts';
import { FakeApiServer, json, type RecordedRequest } from './testing/fake-api-server.ts';
import { CONFIG_MAPS, NODES } from './resources.ts';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';
import type { KubeObject, WatchEvent } from './types.ts';

let tls: TlsFixture;
let server: FakeApiServer;
const clients: HttpKubeClient[] = [];

function client(opts: { qps?: number; clock?: FakeClock } = {}): HttpKubeClient {
  const c = new HttpKubeClient(
    { server: server.url, ca: tls.cert, qps: opts.qps ?? 0, burst: 1, userAgent: 'kv-test' },
    { keepAliveTimeout: 10, ...(opts.clock && { clock: opts.clock }) },
  );
  clients.push(c);
  return c;
}

const enc = new TextEncoder();
const obj = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, resourceVersion: '1' },
  ...extra,
});
const line = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`;

/** A deferred the test resolves to let the server go on. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Starts a streaming answer and hands the response to the test. */
function streamTo(onStart: (res: ServerResponse, req: RecordedRequest) => void): void {
  server.handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    onStart(res, req);
  };
}

const closed = (req: RecordedRequest): Promise<void> =>
  new Promise((resolve) => {
    if (req.raw.socket.destroyed) resolve();
    else
      req.raw.socket.once('close', () => {
        resolve();
      });
  });

async function collect<T extends KubeObject>(it: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  for await (const ev of it) out.push(ev);
  return out;
}

beforeAll(async () => {
  tls = await makeTlsFixture();
  server = await FakeApiServer.start(tls);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
  server.requests.length = 0;
  server.handler = (_req, res) => {
    json(res, 200, { metadata: {} });
  };
});
afterAll(async () => {
  await server.close();
  tls.remove();
});

describe('HttpKubeClient.watch', () => {
  it('sends the watch query and yields events as they arrive, across odd chunk boundaries', async () => {
    const rest = gate();
    let ended = false;
    const bytes = enc.encode(line('ADDED', obj('é-1')) + line('MODIFIED', obj('€-2', { data: { k: '😀' } })));
    // Cut inside 'é' (2 bytes), inside '€' (3 bytes, second line) and inside '😀' (4 bytes).
    const inside = (ch: string, plus: number): number => Buffer.from(bytes).indexOf(Buffer.from(ch)) + plus;
    const cuts = [inside('é', 1), inside('€', 1), inside('😀', 2)];
    streamTo((res) => {
      res.write(bytes.subarray(0, cuts[0]));
      res.write(bytes.subarray(cuts[0], cuts[1]));
      void rest.wait.then(() => {
        res.write(bytes.subarray(cuts[1], cuts[2]));
        res.write(bytes.subarray(cuts[2]));
        res.write(line('DELETED', obj('x')));
        res.end(() => (ended = true));
      });
    });
    const ac = new AbortController();
    const stream = client().watch(
      CONFIG_MAPS,
      {
        namespace: 'ns',
        resourceVersion: '42',
        allowWatchBookmarks: true,
        timeoutSeconds: 30,
        labelSelector: 'a=b',
      },
      ac.signal,
    );
    const iter = stream[Symbol.asyncIterator]();

    const ev1 = await iter.next();
    expect(ev1.value).toEqual({ type: 'ADDED', object: obj('é-1') });
    expect(ended).toBe(false); // received while the response is still open
    expect(server.last.url).toBe(
      '/api/v1/namespaces/ns/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=42&timeoutSeconds=30&labelSelector=a%3Db',
    );
    rest.open();
    const restEvents: unknown[] = [];
    for (let r = await iter.next(); !r.done; r = await iter.next()) restEvents.push(r.value);
    expect(restEvents).toEqual([
      { type: 'MODIFIED', object: obj('€-2', { data: { k: '😀' } }) },
      { type: 'DELETED', object: obj('x') },
    ]);
  });

  it('yields an ERROR event with its Status', async () => {
    const expired = newStatus(410, 'too old resource version: 1 (5)', { reason: 'Expired' });
    streamTo((res) => {
      res.write(line('BOOKMARK', { metadata: { resourceVersion: '5' } }));
      res.end(line('ERROR', expired));
    });
    const events = await collect(client().watch(NODES, {}, new AbortController().signal));
    expect(events).toEqual([
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } },
      { type: 'ERROR', object: expired },
    ]);
  });

  it('ends quietly on abort, and the server sees the socket close', async () => {
    streamTo((res) => {
      res.write(line('ADDED', obj('a')));
    });
    const ac = new AbortController();
    const seen: string[] = [];
    for await (const ev of client().watch(NODES, {}, ac.signal)) {
      seen.push(ev.type);
      ac.abort();
    }
    expect(seen).toEqual(['ADDED']);
    await closed(server.last);
    expect(server.last.raw.socket.destroyed).toBe(true);
  });

  it('ends with KV_ERR_TRANSPORT when the client is destroyed, and the server sees the socket close', async () => {
    streamTo((res) => {
      res.write(line('ADDED', obj('a')));
    });
    const c = client();
    const seen: string[] = [];
    let err: unknown;
    try {
      for await (const ev of c.watch(NODES, {}, new AbortController().signal)) {
        seen.push(ev.type);
        await c.destroy();
      }
    } catch (e) {
      err = e;
    }
    expect(seen).toEqual(['ADDED']);
    expect((err as KvError).code).toBe('KV_ERR_TRANSPORT');
    await closed(server.last);
  });

  it('stays open across quiet spells longer than the idle-socket timeout', async () => {
    streamTo((res) => {
      res.write(line('ADDED', obj('a')));
      setTimeout(() => {
        res.end(line('MODIFIED', obj('a')));
      }, 200);
    });
    // keepAliveTimeout is 10 ms: it closes idle sockets only, never one a watch is reading.
    const events = await collect(client().watch(NODES, {}, new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
  });

  it('closes the socket when the consumer stops early', async () => {
    streamTo((res) => {
      res.write(line('ADDED', obj('a')) + line('ADDED', obj('b')));
    });
    for await (const ev of client().watch(NODES, {}, new AbortController().signal)) {
      expect(ev.type).toBe('ADDED');
      break;
    }
    await closed(server.last);
  });

  it('ends quietly when aborted before the server answers, or before it starts', async () => {
    server.handler = () => undefined;
    const ac = new AbortController();
    const done = collect(client().watch(NODES, {}, ac.signal));
    await new Promise<void>((resolve) => {
      const poll = (): void => {
        if (server.requests.length > 0) resolve();
        else setImmediate(poll);
      };
      poll();
    });
    ac.abort();
    await expect(done).resolves.toEqual([]);
    await expect(collect(client().watch(NODES, {}, AbortSignal.abort()))).resolves.toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('throws the StatusError of a refused watch', async () => {
    server.handler = (_req, res) => {
      json(res, 410, newStatus(410, 'gone', { reason: 'Expired' }));
    };
    let err: unknown;
    try {
      await collect(client().watch(NODES, { resourceVersion: '1' }, new AbortController().signal));
    } catch (e) {
      err = e;
    }
    expect(isGone(err)).toBe(true);
  });

  it('throws KV_ERR_DECODE on a line that is not an event', async () => {
    streamTo((res) => {
      res.end('{"type":"ADDED","object":{}}\nnot json\n');
    });
    await expect(collect(client().watch(NODES, {}, new AbortController().signal))).rejects.toMatchObject({
      code: 'KV_ERR_DECODE',
    });
  });

  it('throws KV_ERR_TRANSPORT when the connection breaks mid-stream', async () => {
    streamTo((res) => {
      res.write(line('ADDED', obj('a')), () => res.socket?.destroy());
    });
    const seen: WatchEvent[] = [];
    let err: unknown;
    try {
      for await (const ev of client().watch(NODES, {}, new AbortController().signal)) seen.push(ev);
    } catch (e) {
      err = e;
    }
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_TRANSPORT');
  });

  it('is not held by the client-side rate limit', async () => {
    const clock = new FakeClock();
    const c = client({ qps: 1, clock });
    await c.get(NODES, 'uses-the-only-token');
    streamTo((res) => {
      res.end(line('ADDED', obj('a')));
    });
    await expect(collect(c.watch(NODES, {}, new AbortController().signal))).resolves.toHaveLength(1);
    expect(clock.pendingCount).toBe(0);
  });
});
