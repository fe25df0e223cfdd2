/**
 * The handler's REST server: bytes per second from a VMI's unix socket to a client, through the server
 * (mutual TLS, websocket, 10 KiB binary frames, a session slot) against a direct connection to the same socket,
 * and the round trip of one typed byte both ways. The socket is a local stand-in that streams as fast as the
 * reader takes (a guest's serial port is far slower: this is the server's own ceiling, not a guest's). Rounds
 * alternate; medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../lib/kubevirt/index.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { newRegistry } from '../lib/kernel/metrics/registry.ts';
import type { RestResolver } from '../lib/handler/rest/resolve.ts';
import { startRestServer } from '../lib/handler/rest/server.ts';
import { openStream, vmiPath, type Dial } from '../lib/handler/rest/testing/client.ts';
import { makeRestPki } from '../lib/handler/rest/testing/pki.ts';
import { direct, MiB, source, TOTAL } from './console-source.ts';
import { median } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const ROUNDS = 3;
const ROUND_TRIPS = 300;

async function proxied(d: Dial, target: string): Promise<number> {
  const start = performance.now();
  const ws = await openStream(d, target);
  let n = 0;
  ws.on('message', (c: Buffer) => (n += c.length));
  await new Promise((resolve) => ws.once('close', resolve));
  if (n !== TOTAL) throw new Error(`got ${n} of ${TOTAL} bytes through the console server`);
  return n / MiB / ((performance.now() - start) / 1000);
}

async function roundTrips(send: (b: Buffer) => void, onData: (fn: () => void) => void): Promise<number> {
  const times: number[] = [];
  let waiting: (() => void) | undefined;
  onData(() => waiting?.());
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t = performance.now();
    await new Promise<void>((resolve) => {
      waiting = resolve;
      send(Buffer.from('x'));
    });
    times.push(performance.now() - t);
  }
  return median(times);
}

export default async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kv-console-bench-'));
  const blast = join(dir, 'blast');
  const echo = join(dir, 'echo');
  const servers = [await source(blast, 'blast'), await source(echo, 'echo')];
  const vmi = { metadata: { name: 'vm', namespace: 'bench', uid: 'u-bench' } } as VirtualMachineInstance;
  const resolver: RestResolver = {
    vmi: () => vmi,
    launcher: () => Promise.resolve({ status: 500, message: 'no launcher in this bench' }),
    socket: (_v, kind) => ({ root: dir, rel: [kind === 'console' ? 'blast' : 'echo'] }),
    portForwardSocket: () => ({ status: 400, message: 'no port-forward in this bench' }),
  };
  const pki = await makeRestPki();
  const srv = await startRestServer({
    port: 0,
    host: '127.0.0.1',
    tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key },
    resolver,
    log: nopLogger,
    registry: newRegistry({ defaultMetrics: false }),
  });
  const d: Dial = { port: srv.port, ca: pki.ca.cert, client: pki.client };
  try {
    const viaDirect: number[] = [];
    const viaServer: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      viaDirect.push(await direct(blast));
      viaServer.push(await proxied(d, vmiPath('bench', 'vm', 'console')));
      ctx.log(
        `console round ${r + 1}: direct ${viaDirect.at(-1)?.toFixed(0)} MiB/s, server ${viaServer.at(-1)?.toFixed(0)} MiB/s`,
      );
    }
    const s = createConnection({ path: echo });
    await new Promise((resolve) => s.once('connect', resolve));
    const directRtt = await roundTrips(
      (b) => s.write(b),
      (fn) => s.on('data', fn),
    );
    s.destroy();
    const ws = await openStream(d, vmiPath('bench', 'vm', 'vnc'));
    const serverRtt = await roundTrips(
      (b) => {
        ws.send(b);
      },
      (fn) => ws.on('message', fn),
    );
    ws.close(1000);
    const mDirect = median(viaDirect);
    const mServer = median(viaServer);
    return [
      {
        name: 'socket → client, direct unix connection',
        value: mDirect,
        unit: 'MiB/s',
        note: `${TOTAL / MiB} MiB, median of ${ROUNDS}`,
      },
      {
        name: 'socket → client, through the console server (wss, mTLS)',
        value: mServer,
        unit: 'MiB/s',
        note: `${TOTAL / MiB} MiB, median of ${ROUNDS}`,
      },
      { name: 'console server / direct throughput', value: mServer / mDirect, unit: 'ratio' },
      {
        name: 'typed byte round trip, direct',
        value: directRtt,
        unit: 'ms',
        note: `median of ${ROUND_TRIPS}`,
      },
      {
        name: 'typed byte round trip, through the console server',
        value: serverRtt,
        unit: 'ms',
        note: `median of ${ROUND_TRIPS}`,
      },
    ];
  } finally {
    await srv.close();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
