import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nopLogger } from '../../kernel/log/log.ts';
import { DatagramReader, frameDatagram, readLine } from '../../rpc/port-forward.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { listenPortForward } from './port-forward.ts';

let dir: string;
let echo: Server;
let echoPort: number;
let closedPort: number;
let pf: { close(): Promise<void> };
let earlier: { close(): Promise<void> } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kv-launcher-pf-'));
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as AddressInfo).port;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) =>
    probe.close(() => {
      r();
    }),
  );
  // In a directory not made yet, then over the socket an earlier run left there.
  earlier = await listenPortForward({ path: join(dir, 'sockets/pf'), log: nopLogger });
  pf = await listenPortForward({ path: join(dir, 'sockets/pf'), log: nopLogger, connectTimeoutMs: 2000 });
});
afterAll(async () => {
  await pf.close();
  await earlier?.close();
  await new Promise<void>((r) =>
    echo.close(() => {
      r();
    }),
  );
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `first` on a new connection; the answer line, then what arrives until `want` bytes are there. */
function session(first: string, want = 0): Promise<{ answer: string; rest: string }> {
  return new Promise((resolve, reject) => {
    const c = connect(join(dir, 'sockets/pf'));
    c.on('error', reject);
    c.write(first);
    readLine(c, 3000).then((answer) => {
      let rest = '';
      c.on('data', (d: Buffer) => {
        rest += d.toString();
        if (rest.length >= want) {
          c.destroy();
          resolve({ answer, rest });
        }
      });
      c.resume();
      if (want === 0)
        c.on('close', () => {
          resolve({ answer, rest });
        });
    }, reject);
  });
}

describe('the launcher’s port-forward socket', () => {
  it('is for its user alone', () => {
    expect(statSync(join(dir, 'sockets/pf')).mode & 0o777).toBe(0o600);
  });

  it('connects the port and relays bytes both ways, those sent right after the request too', async () => {
    expect(await session(`tcp ${echoPort}\nsent at once`, 'sent at once'.length)).toEqual({
      answer: 'ok',
      rest: 'sent at once',
    });
  });

  it('answers a port nothing listens on at once, and closes', async () => {
    expect(await session(`tcp ${closedPort}\n`)).toEqual({
      answer: `error port ${closedPort}: connection refused`,
      rest: '',
    });
  });

  it('relays datagrams to a UDP port and back, framed on the stream', async () => {
    const udp = createSocket('udp4');
    udp.on('message', (m, from) => {
      udp.send(Buffer.concat([Buffer.from('re: '), m]), from.port, from.address);
    });
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const c = connect(join(dir, 'sockets/pf'));
    c.write(`udp ${udp.address().port}\n`);
    expect(await readLine(c, 3000)).toBe('ok');
    const reader = new DatagramReader();
    const got: string[] = [];
    c.on('data', (d: Buffer) => got.push(...reader.push(d).map((x) => x.toString())));
    c.resume();
    c.write(Buffer.concat([frameDatagram(Buffer.from('a')), frameDatagram(Buffer.from('bb'))]));
    await waitFor(() => got.length === 2, 'two answers', { timeoutMs: 3000, intervalMs: 20 });
    expect(got.sort()).toEqual(['re: a', 're: bb']);
    c.destroy();
    udp.close();
  });

  it('drops a connection whose request is not one', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const c = connect(join(dir, 'sockets/pf'));
      c.on('error', () => undefined);
      c.write('GET / HTTP/1.1\n');
      c.on('close', () => {
        resolve(true);
      });
    });
    expect(closed).toBe(true);
  });
});
