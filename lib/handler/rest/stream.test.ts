import { describe, expect, it } from '@jest/globals';
import { Socket } from 'node:net';
import { EventEmitter } from 'node:events';
import { FakeClock } from '../../kernel/clock.ts';
import { frames, relay } from './stream.ts';

/** Just enough of a ws WebSocket for the relay: records what it is asked to do. */
class FakeWs extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: Buffer[] = [];
  readonly calls: string[] = [];
  send(data: Buffer, _o: unknown, cb: () => void): void {
    this.sent.push(data);
    cb();
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
  }
  resume(): void {
    this.calls.push('resume');
  }
}

function setup(): { ws: FakeWs; unix: Socket; clock: FakeClock; session: ReturnType<typeof relay> } {
  const ws = new FakeWs();
  const unix = new Socket();
  const clock = new FakeClock();
  const session = relay(ws, unix, { pingIntervalMs: 1000, clock });
  return { ws, unix, clock, session };
}

describe('frames', () => {
  it.each<[number, number[]]>([
    [0, []],
    [1, [1]],
    [10_240, [10_240]],
    [10_241, [10_240, 1]],
    [25_000, [10_240, 10_240, 4520]],
  ])('%i bytes go out as frames of %j', (n, sizes) => {
    expect(frames(Buffer.alloc(n)).map((f) => f.length)).toEqual(sizes);
  });
});

describe('relay', () => {
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
    ws.emit('close');
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

  it('ends at once when the socket was gone before the relay started', async () => {
    const ws = new FakeWs();
    const unix = new Socket();
    unix.destroy();
    const session = relay(ws, unix, { pingIntervalMs: 1000, clock: new FakeClock() });
    expect((await session.done).reason).toBe('socket-closed');
    expect(ws.calls).toEqual(['close 1000 ']);
  });
});
