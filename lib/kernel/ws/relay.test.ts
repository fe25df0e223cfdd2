import { describe, expect, it } from '@jest/globals';
import { Socket } from 'node:net';
import { EventEmitter } from 'node:events';
import { FakeClock } from '../clock.ts';
import { frames, relayWebSocket, sendableCloseCode, type RelaySession } from './relay.ts';

/** Just enough of a ws WebSocket for the relay: records what it is asked to do; `hold` keeps the send callbacks. */
class FakeWs extends EventEmitter {
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readyState = 1;
  isPaused = false;
  hold = false;
  readonly sent: Buffer[] = [];
  readonly calls: string[] = [];
  readonly held: (() => void)[] = [];
  send(data: Buffer, _o: unknown, cb: () => void): void {
    this.sent.push(data);
    if (this.hold) this.held.push(cb);
    else cb();
  }
  ping(): void {
    this.calls.push('ping');
  }
  close(code: number, reason: string): void {
    this.calls.push(`close ${code} ${reason}`);
    this.readyState = 3;
  }
  terminate(): void {
    this.calls.push('terminate');
    this.readyState = 3;
  }
  pause(): void {
    this.calls.push('pause');
    this.isPaused = true;
  }
  resume(): void {
    this.calls.push('resume');
    this.isPaused = false;
  }
}

const KIB = 1024;

function setup(): { ws: FakeWs; unix: Socket; clock: FakeClock; session: RelaySession<'socket-closed'> } {
  const ws = new FakeWs();
  const unix = new Socket();
  const clock = new FakeClock();
  const session = relayWebSocket(ws, unix, {
    pingIntervalMs: 1000,
    clock,
    peerClosed: 'socket-closed',
    frameBytes: 10 * KIB,
    terminateOnError: true,
  });
  return { ws, unix, clock, session };
}

function setupPair(): { client: FakeWs; peer: FakeWs; session: RelaySession<'handler-closed'> } {
  const client = new FakeWs();
  const peer = new FakeWs();
  const session = relayWebSocket(client, peer, {
    pingIntervalMs: 1000,
    clock: new FakeClock(),
    peerClosed: 'handler-closed',
  });
  return { client, peer, session };
}

describe('frames', () => {
  it.each<[number, number[]]>([
    [0, []],
    [1, [1]],
    [10_240, [10_240]],
    [10_241, [10_240, 1]],
    [25_000, [10_240, 10_240, 4520]],
  ])('%i bytes go out as frames of %j', (n, sizes) => {
    expect(frames(Buffer.alloc(n), 10_240).map((f) => f.length)).toEqual(sizes);
  });
});

describe('sendableCloseCode', () => {
  it.each<[number, number]>([
    [1000, 1000],
    [1001, 1001],
    [1004, 1000],
    [1005, 1000],
    [1006, 1000],
    [1011, 1011],
    [1015, 1000],
    [4000, 4000],
    [999, 1000],
    [5000, 1000],
  ])('%i is sent as %i', (code, sent) => {
    expect(sendableCloseCode(code)).toBe(sent);
  });
});

describe('relayWebSocket to a socket', () => {
  it('pings each period and ends the session when a ping is still unanswered at the next tick', async () => {
    const { ws, clock, session } = setup();
    clock.advance(1000);
    expect(ws.calls).toEqual(['ping']);
    ws.emit('pong');
    clock.advance(1000);
    expect(ws.calls).toEqual(['ping', 'ping']);
    clock.advance(1000);
    expect(ws.calls).toEqual(['ping', 'ping', 'terminate']);
    expect(await session.done).toMatchObject({ reason: 'pong-overdue', pongs: 1 });
  });

  it('sends socket bytes as binary frames and writes only binary client frames to the socket', async () => {
    const { ws, unix, session } = setup();
    unix.emit('data', Buffer.alloc(12_000, 1));
    expect(ws.sent.map((b) => b.length)).toEqual([10_240, 1760]);
    ws.emit('message', Buffer.from('text'), false);
    ws.emit('close', 1000, Buffer.alloc(0));
    expect(await session.done).toMatchObject({
      reason: 'client-closed',
      bytesToClient: 12_000,
      bytesFromClient: 0,
    });
  });

  it('closes the websocket with 1000 when the socket ends, and with the given code when ended', async () => {
    const a = setup();
    a.unix.emit('end');
    expect(a.ws.calls).toEqual(['close 1000 ']);
    expect((await a.session.done).reason).toBe('socket-closed');
    const b = setup();
    b.session.end(1001, 'close by another connection');
    b.session.end(1000, 'twice');
    expect(b.ws.calls).toEqual(['close 1001 close by another connection']);
    expect((await b.session.done).reason).toBe('ended');
  });

  it('drops the client’s connection on a socket error', async () => {
    const { ws, unix, session } = setup();
    const err = new Error('boom');
    unix.emit('error', err);
    expect(ws.calls).toEqual(['terminate']);
    expect(await session.done).toMatchObject({ reason: 'error', error: err });
  });

  it('stops reading the socket above 1 MiB queued on the websocket and reads again below 256 KiB', () => {
    const { ws, unix } = setup();
    ws.hold = true;
    unix.emit('data', Buffer.alloc(1024 * KIB));
    expect(unix.isPaused()).toBe(false);
    unix.emit('data', Buffer.alloc(1));
    expect(unix.isPaused()).toBe(true);
    for (let i = 0; i < 76; i++) ws.held.shift()?.();
    expect(unix.isPaused()).toBe(true);
    ws.held.shift()?.();
    expect(unix.isPaused()).toBe(false);
  });

  it('ends at once when the socket was gone before the relay started', async () => {
    const ws = new FakeWs();
    const unix = new Socket();
    unix.destroy();
    const session = relayWebSocket(ws, unix, {
      pingIntervalMs: 1000,
      clock: new FakeClock(),
      peerClosed: 'socket-closed',
    });
    expect((await session.done).reason).toBe('socket-closed');
    expect(ws.calls).toEqual(['close 1000 ']);
  });
});

describe('relayWebSocket to a websocket', () => {
  it('passes binary payloads unchanged both ways, counts them, and ignores text frames', async () => {
    const { client, peer, session } = setupPair();
    peer.emit('message', Buffer.alloc(20 * KIB, 1), true);
    client.emit('message', Buffer.from('keys'), true);
    client.emit('message', Buffer.from('text'), false);
    expect(client.sent.map((b) => b.length)).toEqual([20 * KIB]);
    expect(peer.sent.map((b) => b.toString())).toEqual(['keys']);
    session.end(1001, 'server shutting down');
    expect(await session.done).toMatchObject({
      reason: 'ended',
      code: 1001,
      bytesToClient: 20 * KIB,
      bytesFromClient: 4,
    });
  });

  it('closes the other side with the code of the side that closed, 1000 for one that may not be sent', async () => {
    const a = setupPair();
    a.client.readyState = 3;
    a.client.emit('close', 4000, Buffer.from('bye'));
    expect(a.peer.calls).toEqual(['close 4000 bye']);
    expect(await a.session.done).toMatchObject({ reason: 'client-closed', code: 4000 });
    const b = setupPair();
    b.peer.readyState = 3;
    b.peer.emit('close', 1006, Buffer.alloc(0));
    expect(b.client.calls).toEqual(['close 1000 ']);
    expect(await b.session.done).toMatchObject({ reason: 'handler-closed', code: 1000 });
  });

  it('sends an error to both sides as a close with 1011', async () => {
    const { client, peer, session } = setupPair();
    peer.emit('error', new Error('boom'));
    expect(client.calls).toEqual(['close 1011 ']);
    expect(peer.calls).toEqual(['close 1011 ']);
    expect((await session.done).reason).toBe('error');
  });

  it('stops reading a side while more than 1 MiB is queued towards the other, until less than 256 KiB is', () => {
    const { client, peer } = setupPair();
    peer.hold = true;
    for (let i = 0; i < 5; i++) client.emit('message', Buffer.alloc(256 * KIB), true);
    expect(client.calls).toEqual(['pause']);
    for (let i = 0; i < 4; i++) peer.held.shift()?.();
    expect(client.calls).toEqual(['pause']);
    peer.held.shift()?.();
    expect(client.calls).toEqual(['pause', 'resume']);
  });

  it('ends at once when a side was closed before the relay started', async () => {
    const client = new FakeWs();
    const peer = new FakeWs();
    peer.readyState = 3;
    const session = relayWebSocket(client, peer, {
      pingIntervalMs: 1000,
      clock: new FakeClock(),
      peerClosed: 'handler-closed',
    });
    expect((await session.done).reason).toBe('handler-closed');
    expect(client.calls).toEqual(['close 1000 ']);
  });
});
