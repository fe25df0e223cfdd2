import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { LibvirtConnection, type OpenOptions } from './connection.ts';
import { VIR_ERR } from './error-codes.ts';
import { PROC } from './procedures.ts';
import {
  KEEPALIVE_PROC,
  KEEPALIVE_PROGRAM,
  LibvirtError,
  MESSAGE_STATUS,
  MESSAGE_TYPE,
  REMOTE_PROGRAM,
} from './protocol.ts';
import { FakeDaemon } from './testing/fake-daemon.ts';
import { decode, encode } from './xdr.ts';

let daemon: FakeDaemon;
const conns: LibvirtConnection[] = [];

beforeEach(async () => {
  daemon = await FakeDaemon.start();
});
afterEach(async () => {
  for (const c of conns.splice(0)) await c.close();
  await daemon.stop();
});

async function open(opts: Partial<OpenOptions> = {}): Promise<LibvirtConnection> {
  const c = await LibvirtConnection.open({
    socketPath: daemon.path,
    uri: 'qemu:///session',
    keepAlive: false,
    ...opts,
  });
  conns.push(c);
  return c;
}

const versionOf = (n: bigint): Buffer => encode(PROC.connectGetVersion.ret, { hvVer: n });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('LibvirtConnection handshake', () => {
  it('asks for keepalive support, then opens the URI', async () => {
    await open({ keepAlive: { intervalMs: 5000, count: 5 }, clock: new FakeClock() });
    const procs = daemon.received.map((p) => p.header.procedure);
    expect(procs).toEqual([PROC.connectSupportsFeature.procedure, PROC.connectOpen.procedure]);
    const feature = decode(PROC.connectSupportsFeature.args, daemon.received[0]?.payload ?? Buffer.alloc(0));
    expect(feature).toEqual({ feature: 10 });
    const args = decode(PROC.connectOpen.args, daemon.received[1]?.payload ?? Buffer.alloc(0));
    expect(args).toEqual({ name: 'qemu:///session', flags: 0 });
    expect(daemon.received.every((p) => p.header.program === REMOTE_PROGRAM && p.header.version === 1)).toBe(
      true,
    );
  });

  it('fails with KV_ERR_TRANSPORT when nothing listens on the socket', async () => {
    const err = await rejection(
      LibvirtConnection.open({ socketPath: `${daemon.path}.none`, uri: 'qemu:///session' }),
    );
    expect(err).toMatchObject({ code: 'KV_ERR_TRANSPORT' });
  });
});

describe('LibvirtConnection calls', () => {
  it('matches concurrent replies to their calls by serial, in any order', async () => {
    const c = await open();
    const a = c.call(PROC.connectGetVersion, undefined);
    const b = c.call(PROC.connectGetVersion, undefined);
    const callA = await daemon.nextCall();
    const callB = await daemon.nextCall();
    expect(callA.header.serial).not.toBe(callB.header.serial);
    daemon.reply(callB, versionOf(2n));
    daemon.reply(callA, versionOf(1n));
    await expect(a).resolves.toEqual({ hvVer: 1n });
    await expect(b).resolves.toEqual({ hvVer: 2n });
  });

  it('rejects with LibvirtError carrying the code, domain and message of an ERROR reply', async () => {
    const c = await open();
    const p = c.call(PROC.domainLookupByName, { name: 'missing' });
    daemon.replyError(await daemon.nextCall(), {
      code: VIR_ERR.NO_DOMAIN,
      domain: 10,
      message: 'Domain not found',
    });
    const err = await rejection(p);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ libvirtCode: 42, libvirtDomain: 10, message: 'Domain not found' });
  });

  it('rejects with KV_ERR_DECODE when a reply does not match the result schema', async () => {
    const c = await open();
    const p = c.call(PROC.connectGetVersion, undefined);
    daemon.reply(await daemon.nextCall(), Buffer.from([0, 0, 0, 1]));
    await expect(p).rejects.toMatchObject({ code: 'KV_ERR_DECODE' });
  });

  it('times out a call, ignores its late reply, and keeps serving', async () => {
    const clock = new FakeClock();
    const c = await open({ clock, callTimeoutMs: 1000 });
    const p = c.call(PROC.connectGetVersion, undefined);
    const late = await daemon.nextCall();
    clock.advance(1000);
    await expect(p).rejects.toMatchObject({ code: 'KV_ERR_TIMEOUT' });
    daemon.reply(late, versionOf(1n));
    const next = c.call(PROC.connectGetVersion, undefined);
    daemon.reply(await daemon.nextCall(), versionOf(3n));
    await expect(next).resolves.toEqual({ hvVer: 3n });
  });

  it('rejects with KV_ERR_ABORTED when the signal aborts', async () => {
    const c = await open();
    const ac = new AbortController();
    const p = c.call(PROC.connectGetVersion, undefined, { signal: ac.signal });
    await daemon.nextCall();
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'KV_ERR_ABORTED' });
  });
});

describe('LibvirtConnection failures', () => {
  it('rejects every call in flight when the daemon drops the connection, and later calls too', async () => {
    const c = await open();
    const closed: (Error | undefined)[] = [];
    c.onClose((e) => closed.push(e));
    const inFlight = [
      c.call(PROC.connectGetVersion, undefined),
      c.call(PROC.connectGetCapabilities, undefined),
    ];
    await daemon.until(() => daemon.calls.length === 2);
    daemon.dropClient();
    for (const p of inFlight) {
      await expect(p).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT', message: /connection lost/ });
    }
    expect(closed).toHaveLength(1);
    expect(closed[0]).toBeInstanceOf(Error);
    expect(c.isOpen).toBe(false);
    await expect(c.call(PROC.connectGetVersion, undefined)).rejects.toMatchObject({
      code: 'KV_ERR_TRANSPORT',
      message: /connection is closed/,
    });
  });

  it('drops the connection on a corrupt packet length', async () => {
    const c = await open();
    const p = c.call(PROC.connectGetVersion, undefined);
    await daemon.nextCall();
    daemon.sendRaw(Buffer.from([0, 0, 0, 3]));
    await expect(p).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT', message: /bad packet length/ });
  });

  it('close() sends CONNECT_CLOSE and reports an orderly close', async () => {
    const c = await open();
    const closed: (Error | undefined)[] = [];
    c.onClose((e) => closed.push(e));
    await c.close();
    expect(daemon.received.at(-1)?.header.procedure).toBe(PROC.connectClose.procedure);
    expect(closed).toEqual([undefined]);
  });
});

describe('LibvirtConnection keepalive', () => {
  it('answers the daemon PING with a PONG', async () => {
    await open();
    daemon.send({
      program: KEEPALIVE_PROGRAM,
      procedure: KEEPALIVE_PROC.PING,
      type: MESSAGE_TYPE.MESSAGE,
      serial: 0,
      status: MESSAGE_STATUS.OK,
    });
    await daemon.until(() => daemon.received.some((p) => p.header.program === KEEPALIVE_PROGRAM));
    const pong = daemon.received.find((p) => p.header.program === KEEPALIVE_PROGRAM);
    expect(pong?.header).toMatchObject({
      procedure: KEEPALIVE_PROC.PONG,
      type: MESSAGE_TYPE.MESSAGE,
      serial: 0,
    });
  });

  it('pings an idle daemon and declares it dead when the pings go unanswered', async () => {
    const clock = new FakeClock();
    const c = await open({ clock, keepAlive: { intervalMs: 1000, count: 2 }, callTimeoutMs: 60_000 });
    const p = c.call(PROC.connectGetVersion, undefined);
    await daemon.nextCall();
    clock.advance(2000);
    const pings = (): number =>
      daemon.received.filter(
        (x) => x.header.program === KEEPALIVE_PROGRAM && x.header.procedure === KEEPALIVE_PROC.PING,
      ).length;
    await daemon.until(() => pings() === 2);
    clock.advance(1000);
    await expect(p).rejects.toMatchObject({ code: 'KV_ERR_TRANSPORT', message: /no keepalive answer/ });
    expect(c.isOpen).toBe(false);
  });
});

describe('LibvirtConnection messages', () => {
  it('hands MESSAGE packets to the handlers of their program and procedure', async () => {
    const c = await open();
    const got: string[] = [];
    const off = c.onMessage(REMOTE_PROGRAM, 318, (payload) => got.push(payload.toString()));
    c.onMessage(REMOTE_PROGRAM, 333, () => got.push('other'));
    const msg = { program: REMOTE_PROGRAM, type: MESSAGE_TYPE.MESSAGE, serial: 0, status: MESSAGE_STATUS.OK };
    daemon.send({ ...msg, procedure: 318 }, Buffer.from('ev1!'));
    // A reply after the message proves the message was processed first.
    const p = c.call(PROC.connectGetVersion, undefined);
    daemon.reply(await daemon.nextCall(), versionOf(1n));
    await p;
    off();
    daemon.send({ ...msg, procedure: 318 }, Buffer.from('ev2!'));
    const q = c.call(PROC.connectGetVersion, undefined);
    daemon.reply(await daemon.nextCall(), versionOf(1n));
    await q;
    expect(got).toEqual(['ev1!']);
  });
});

describe('LibvirtConnection arguments', () => {
  it('rejects (does not throw) when the arguments do not fit the schema, and sends nothing', async () => {
    const c = await open();
    const before = daemon.received.length;
    await expect(c.call(PROC.connectSupportsFeature, { feature: 2 ** 40 })).rejects.toThrow(
      /not a valid int/,
    );
    const p = c.call(PROC.connectGetVersion, undefined);
    daemon.reply(await daemon.nextCall(), versionOf(1n));
    await p;
    expect(daemon.received.length).toBe(before + 1);
  });
});
