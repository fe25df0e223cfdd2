import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { LibvirtConnection } from './connection.ts';
import { uuidToBytes } from './domain-ref.ts';
import { DomainEventHub } from './event-hub.ts';
import type { DomainEvent } from './events.ts';
import { EVENT_MSG, EVENT_PROC, PROC } from './procedures.ts';
import { MESSAGE_STATUS, MESSAGE_TYPE, REMOTE_PROGRAM, type Packet } from './protocol.ts';
import { FakeDaemon } from './testing/fake-daemon.ts';
import { decode, encode } from './xdr.ts';

let daemon: FakeDaemon;
let conn: LibvirtConnection;

beforeEach(async () => {
  daemon = await FakeDaemon.start();
  conn = await LibvirtConnection.open({ socketPath: daemon.path, uri: 'qemu:///session', keepAlive: false });
});
afterEach(async () => {
  await conn.close();
  await daemon.stop();
});

const dom = { name: 'vm', uuid: uuidToBytes('0b3c5a1e-3c8a-4d5e-9f00-112233445566'), id: 1 };
const msgHeader = {
  program: REMOTE_PROGRAM,
  type: MESSAGE_TYPE.MESSAGE,
  serial: 0,
  status: MESSAGE_STATUS.OK,
};

function sendLifecycle(callbackID: number, event: number, detail = 0): void {
  daemon.send(
    { ...msgHeader, procedure: EVENT_PROC.lifecycle },
    encode(EVENT_MSG.lifecycle, { callbackID, msg: { dom, event, detail } }),
  );
}

function sendRemoved(callbackID: number, devAlias: string): void {
  daemon.send(
    { ...msgHeader, procedure: EVENT_PROC.deviceRemoved },
    encode(EVENT_MSG.deviceRemoved, { callbackID, msg: { dom, devAlias } }),
  );
}

async function nextRegister(): Promise<{ call: Packet; eventID: number }> {
  const call = await daemon.nextCall();
  expect(call.header.procedure).toBe(PROC.connectDomainEventCallbackRegisterAny.procedure);
  return { call, eventID: decode(PROC.connectDomainEventCallbackRegisterAny.args, call.payload).eventID };
}

const answer = (call: Packet, callbackID: number): void => {
  daemon.reply(call, encode(PROC.connectDomainEventCallbackRegisterAny.ret, { callbackID }));
};

/** A round trip through the daemon: every packet it sent before is processed once this resolves. */
async function sync(): Promise<void> {
  const p = conn.call(PROC.connectGetHostname, undefined);
  daemon.reply(await daemon.nextCall(), encode(PROC.connectGetHostname.ret, { hostname: 'h' }));
  await p;
}

const label = (e: DomainEvent): string =>
  e.kind === 'lifecycle' ? `${e.event}/${e.detail}` : `${e.kind}:${'alias' in e ? e.alias : ''}`;

describe('DomainEventHub', () => {
  it('registers each kind and routes events by callback id, in arrival order', async () => {
    const got: string[] = [];
    const subscribing = new DomainEventHub(conn).subscribe(['lifecycle', 'device-removed'], (e) =>
      got.push(label(e)),
    );
    const lifecycle = await nextRegister();
    answer(lifecycle.call, 11);
    const removed = await nextRegister();
    answer(removed.call, 12);
    await subscribing;
    expect([lifecycle.eventID, removed.eventID]).toEqual([0, 15]);

    sendLifecycle(11, 0);
    sendLifecycle(11, 2);
    sendRemoved(12, 'ua-disk1');
    sendLifecycle(99, 5); // another client's callback: not ours
    sendLifecycle(11, 5, 1);
    await sync();
    expect(got).toEqual(['defined/added', 'started/booted', 'device-removed:ua-disk1', 'stopped/destroyed']);
  });

  it('holds an event that arrives before its registration reply and delivers it first', async () => {
    const got: string[] = [];
    const subscribing = new DomainEventHub(conn).subscribe(['lifecycle'], (e) => got.push(label(e)));
    const { call } = await nextRegister();
    sendLifecycle(21, 2);
    answer(call, 21);
    sendLifecycle(21, 3);
    await subscribing;
    await sync();
    expect(got).toEqual(['started/booted', 'suspended/paused']);
  });

  it('close() deregisters the callbacks and stops delivery', async () => {
    const got: string[] = [];
    const subscribing = new DomainEventHub(conn).subscribe(['lifecycle'], (e) => got.push(label(e)));
    answer((await nextRegister()).call, 31);
    const sub = await subscribing;
    const closing = sub.close();
    const dereg = await daemon.nextCall();
    expect(dereg.header.procedure).toBe(PROC.connectDomainEventCallbackDeregisterAny.procedure);
    expect(decode(PROC.connectDomainEventCallbackDeregisterAny.args, dereg.payload)).toEqual({
      callbackID: 31,
    });
    daemon.reply(dereg);
    await closing;
    sendLifecycle(31, 2);
    await sync();
    expect(got).toEqual([]);
  });

  it('keeps two subscriptions of the same kind apart', async () => {
    const hub = new DomainEventHub(conn);
    const a: string[] = [];
    const b: string[] = [];
    const subA = hub.subscribe(['lifecycle'], (e) => a.push(label(e)));
    answer((await nextRegister()).call, 1);
    await subA;
    const subB = hub.subscribe(['lifecycle'], (e) => b.push(label(e)));
    answer((await nextRegister()).call, 2);
    await subB;
    sendLifecycle(2, 3);
    sendLifecycle(1, 4);
    await sync();
    expect(a).toEqual(['resumed/unpaused']);
    expect(b).toEqual(['suspended/paused']);
  });

  it('a throwing handler does not stop later events', async () => {
    const got: string[] = [];
    const subscribing = new DomainEventHub(conn).subscribe(['lifecycle'], (e) => {
      got.push(label(e));
      throw new Error('handler bug');
    });
    answer((await nextRegister()).call, 41);
    await subscribing;
    sendLifecycle(41, 2);
    sendLifecycle(41, 5);
    await sync();
    expect(got).toEqual(['started/booted', 'stopped/shutdown']);
  });
});
