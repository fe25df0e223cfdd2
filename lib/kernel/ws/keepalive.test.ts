import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { FakeClock } from '../clock.ts';
import { keepAlive, type Pingable } from './keepalive.ts';

/** A socket that records pings and answers them while `answering`. */
function fakeSocket(): { ws: Pingable; pings: () => number; answering: { on: boolean } } {
  const e = new EventEmitter();
  let pings = 0;
  const answering = { on: true };
  const ws: Pingable = {
    ping: (): void => {
      pings++;
      if (answering.on) e.emit('pong');
    },
    on: (event, listener) => e.on(event, listener),
  };
  return { ws, pings: () => pings, answering };
}

describe('keepAlive', () => {
  it('pings every interval, counts pongs, and calls onOverdue once a ping goes unanswered', () => {
    const clock = new FakeClock();
    const s = fakeSocket();
    let overdue = 0;
    const k = keepAlive(s.ws, { intervalMs: 1000, clock, onOverdue: () => overdue++ });
    clock.advance(999);
    expect(s.pings()).toBe(0);
    clock.advance(1);
    clock.advance(1000);
    expect([s.pings(), k.pongs, overdue]).toEqual([2, 2, 0]);
    s.answering.on = false;
    clock.advance(1000);
    expect([s.pings(), overdue]).toEqual([3, 0]);
    clock.advance(1000);
    expect(overdue).toBe(1);
    clock.advance(5000);
    expect([s.pings(), overdue, clock.pendingCount]).toEqual([3, 1, 0]);
  });

  it('stops pinging when cancelled', () => {
    const clock = new FakeClock();
    const s = fakeSocket();
    const k = keepAlive(s.ws, { intervalMs: 1000, clock, onOverdue: () => undefined });
    k.cancel();
    clock.advance(10_000);
    expect([s.pings(), clock.pendingCount]).toEqual([0, 0]);
  });
});
