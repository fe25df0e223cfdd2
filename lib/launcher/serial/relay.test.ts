/**
 * The real SerialRelay in a process of its own (testing/relay-process.ts), between a fake QEMU serial socket
 * and console clients, with its resident memory read from /proc (Node runs with the launcher's flags, as in
 * the image). "A guest that prints for a minute" is
 * 128 MiB here: a guest kernel writing to its UART at about 2 MiB/s (QEMU does not slow a UART to its baud
 * rate) for a minute.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep, waitFor } from '../../kernel/testing/wait.ts';
import { LAUNCHER_NODE_FLAGS } from '../node-flags.ts';
import { DEFAULT_CLIENT_BUFFER_BYTES } from './relay.ts';

jest.setTimeout(120_000);

const RELAY = fileURLToPath(new URL('./testing/relay-process.ts', import.meta.url));
const CHUNK = 64 * 1024;
const MINUTE_OF_OUTPUT = 128 * 1024 * 1024;
/** Generous: the relay's own growth while 128 MiB pass through it (garbage not yet collected, JIT). */
const RSS_GROWTH_BOUND = 48 * 1024 * 1024;

let dir = '';
let qemu: Server;
let guest: Promise<Socket>;
let relay: ChildProcess;
let relayLog = '';
const clients: Socket[] = [];

/** The n-th chunk of output: different bytes in every chunk, so the reader's hash means something. */
function chunk(n: number): Buffer {
  return Buffer.alloc(CHUNK, `line ${n} of the guest's console output\r\n`);
}

async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/**
 * Writes `bytes` of output from the fake QEMU, adding them to `hash`, as fast as the relay takes them and the
 * reading client keeps up (this process is that client too: it must get its turn to read).
 */
async function print(o: {
  sock: Socket;
  bytes: number;
  hash: Hash;
  lag: (sent: number) => number;
}): Promise<void> {
  for (let n = 0; n * CHUNK < o.bytes; n++) {
    const c = chunk(n);
    o.hash.update(c);
    if (!o.sock.write(c)) await new Promise((resolve) => o.sock.once('drain', resolve));
    while (o.lag((n + 1) * CHUNK) > 16 * CHUNK) await new Promise((resolve) => setImmediate(resolve));
  }
}

function connect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path }, () => {
      resolve(s);
    });
    s.once('error', reject);
    clients.push(s);
  });
}

/** A console client that reads everything; its byte count and hash. */
function reader(s: Socket): { bytes: () => number; digest: () => string } {
  const hash = createHash('sha256');
  let bytes = 0;
  s.on('data', (b: Buffer) => {
    bytes += b.length;
    hash.update(b);
  });
  return { bytes: () => bytes, digest: () => hash.digest('hex') };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-relay-'));
  relayLog = '';
  qemu = createServer();
  guest = new Promise((resolve) => qemu.once('connection', resolve));
  await new Promise<void>((resolve) => qemu.listen(join(dir, 'qemu.sock'), resolve));
  relay = spawn(
    process.execPath,
    [...LAUNCHER_NODE_FLAGS, '--import', 'tsx', RELAY, join(dir, 'console.sock'), join(dir, 'qemu.sock')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  relay.stderr?.setEncoding('utf8').on('data', (d: string) => (relayLog += d));
  let out = '';
  relay.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  await waitFor(
    () => out.includes('ready'),
    () => `the relay never became ready: ${relayLog}`,
  );
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  if (relay.exitCode === null) {
    const exited = new Promise((resolve) => relay.once('exit', resolve));
    relay.kill('SIGTERM');
    await exited;
  }
  (await guest).destroy();
  await new Promise((resolve) => qemu.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('SerialRelay with a console client that stops reading', () => {
  it('drops that client once its unread output passes the limit; the reader gets everything', async () => {
    const up = await guest;
    const stalled = await connect(join(dir, 'console.sock'));
    stalled.pause();
    const ok = reader(await connect(join(dir, 'console.sock')));
    const pid = relay.pid ?? 0;
    // One chunk first: once the reader has it, both clients are the relay's (accepted in order). Then a
    // warm-up (code compiled, buffers allocated once) before the memory is taken as the baseline.
    const sent = createHash('sha256');
    let printed = 0;
    const printing = async (bytes: number): Promise<void> => {
      const offset = printed;
      await print({ sock: up, bytes, hash: sent, lag: (n) => offset + n - ok.bytes() });
      printed += bytes;
      await waitFor(
        () => ok.bytes() === printed,
        () => `the reader got ${ok.bytes()} of ${printed}: ${relayLog}`,
      );
    };
    await printing(CHUNK);
    await printing(4 * 1024 * 1024);
    const before = await rss(pid);
    await printing(MINUTE_OF_OUTPUT);
    const after = await rss(pid);

    expect(after - before).toBeLessThan(RSS_GROWTH_BOUND);
    expect(relayLog).toContain('serial console client dropped: it does not read');
    // The stalled client, reading at last, finds at most its allowance (plus the sockets' buffers), then EOF.
    const late = reader(stalled);
    const ended = new Promise((resolve) => stalled.once('close', resolve));
    stalled.resume();
    await ended;
    expect(late.bytes()).toBeLessThan(DEFAULT_CLIENT_BUFFER_BYTES + 8 * 1024 * 1024);
    // The reader got exactly what the guest printed.
    expect(ok.digest()).toBe(sent.digest('hex'));
  });

  it('holds back what a client types while QEMU does not read it', async () => {
    const up = await guest;
    up.pause();
    const typist = await connect(join(dir, 'console.sock'));
    const pid = relay.pid ?? 0;
    const before = await rss(pid);
    const hash = createHash('sha256');
    for (let n = 0; n * CHUNK < MINUTE_OF_OUTPUT; n++) {
      const c = chunk(n);
      hash.update(c);
      typist.write(c);
    }
    // Wait until the relay stops taking input: what the client still holds no longer shrinks.
    let last = -1;
    await waitFor(
      async () => {
        const now = typist.writableLength;
        const still = now === last || now === 0;
        last = now;
        if (!still) await sleep(500);
        return still;
      },
      'the relay kept reading',
      { intervalMs: 500 },
    );
    const during = await rss(pid);
    expect(during - before).toBeLessThan(RSS_GROWTH_BOUND);
    // Once QEMU reads again, every byte arrives in order.
    const got = createHash('sha256');
    let bytes = 0;
    up.on('data', (b: Buffer) => {
      bytes += b.length;
      got.update(b);
    });
    up.resume();
    await waitFor(
      () => bytes === MINUTE_OF_OUTPUT,
      () => `QEMU got ${bytes}`,
    );
    expect(got.digest('hex')).toBe(hash.digest('hex'));
  });
});
