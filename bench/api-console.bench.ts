/**
 * `npm run bench -- api`: the console path through the api's stream proxy (wss in, relayed frame by frame, wss
 * with mutual TLS out) and the handler's REST server to a VMI's unix socket, against a direct connection to
 * the same socket and against the handler's server alone, in one run. The socket is a local stand-in streaming as
 * fast as the reader takes (a guest's serial port is far slower: this is the path's own ceiling); without the
 * kube-apiserver hop, which api-guest-console.bench.ts takes to a real guest. Rounds alternate; medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { VirtualMachineInstance } from '../lib/kubevirt/index.ts';
import { newStreamServer, proxyStream } from '../lib/apiserver/stream/proxy.ts';
import { realClock } from '../lib/kernel/clock.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { newRegistry } from '../lib/kernel/metrics/registry.ts';
import type { RelaySession } from '../lib/kernel/ws/relay.ts';
import type { RestResolver } from '../lib/handler/rest/resolve.ts';
import { startRestServer } from '../lib/handler/rest/server.ts';
import { openStream, vmiPath, type Dial } from '../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../lib/handler/rest/testing/pki.ts';
import { direct, MiB, source, TOTAL } from './console-source.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const ROUNDS = 3;

async function timed(ws: Promise<WebSocket>, what: string): Promise<number> {
  const start = performance.now();
  const socket = await ws;
  let n = 0;
  socket.on('message', (c: Buffer) => (n += c.length));
  await new Promise((resolve) => socket.once('close', resolve));
  if (n !== TOTAL) throw new Error(`got ${n} of ${TOTAL} bytes ${what}`);
  return n / MiB / ((performance.now() - start) / 1000);
}

/** An https server doing what the api does after its checks: proxyStream to the handler. */
async function apiHop(pki: RestPki, handlerPort: number): Promise<HttpsServer> {
  const wss = newStreamServer();
  const sessions = new Set<RelaySession>();
  const server = createHttps({ cert: pki.server.cert, key: pki.server.key });
  server.on('upgrade', (req, socket, head) => {
    void proxyStream(
      {
        wss,
        tls: { ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key },
        clock: realClock,
        pingIntervalMs: 30_000,
        log: nopLogger,
        sessions,
        opened: () => undefined,
      },
      { kind: 'console', address: { host: '127.0.0.1', port: handlerPort }, path: req.url ?? '/' },
      { req, socket, head },
      nopLogger,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export default async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kv-api-console-bench-'));
  const blast = join(dir, 'blast');
  const blaster = await source(blast, 'blast');
  const vmi = { metadata: { name: 'vm', namespace: 'bench', uid: 'u-bench' } } as VirtualMachineInstance;
  const resolver: RestResolver = {
    vmi: () => vmi,
    launcher: () => Promise.resolve({ status: 500, message: 'no launcher in this bench' }),
    socket: () => ({ root: dir, rel: ['blast'] }),
    portForwardSocket: () => ({ status: 400, message: 'no port-forward in this bench' }),
  };
  const pki = await makeRestPki();
  const handler = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver,
    log: nopLogger,
    registry: newRegistry({ defaultMetrics: false }),
  });
  const api = await apiHop(pki, handler.port);
  const d: Dial = { port: handler.port, ca: pki.ca.cert, client: pki.client };
  const path = vmiPath('bench', 'vm', 'console');
  const viaApi = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(
        `wss://127.0.0.1:${(api.address() as AddressInfo).port}${path}`,
        ['plain.kubevirt.io'],
        {
          ca: pki.ca.cert,
          perMessageDeflate: false,
        },
      );
      ws.once('open', () => {
        resolve(ws);
      });
      ws.once('error', reject);
    });
  try {
    const rates = { direct: [] as number[], handler: [] as number[], api: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      rates.direct.push(await direct(blast));
      rates.handler.push(await timed(openStream(d, path), 'through the handler'));
      rates.api.push(await timed(viaApi(), 'through the api and the handler'));
      ctx.log(
        `api console round ${r + 1}: direct ${rates.direct.at(-1)?.toFixed(0)}, handler ${rates.handler.at(-1)?.toFixed(0)}, api+handler ${rates.api.at(-1)?.toFixed(0)} MiB/s`,
      );
    }
    const [mDirect, mHandler, mApi] = [median(rates.direct), median(rates.handler), median(rates.api)];
    const note = `${TOTAL / MiB} MiB, median of ${ROUNDS}`;
    return [
      { name: 'console socket → client, direct', value: mDirect, unit: 'MiB/s', note },
      { name: 'console socket → client, through the handler', value: mHandler, unit: 'MiB/s', note },
      { name: 'console socket → client, through the api and the handler', value: mApi, unit: 'MiB/s', note },
      {
        name: 'api + handler / direct throughput',
        value: mApi / mDirect,
        unit: 'ratio',
        note: 'stand-in socket, without the kube-apiserver hop',
      },
      { name: 'api + handler / handler alone', value: mApi / mHandler, unit: 'ratio' },
    ];
  } finally {
    api.close();
    await handler.close();
    blaster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
