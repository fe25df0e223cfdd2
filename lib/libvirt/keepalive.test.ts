import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../kernel/clock.ts';
import { KeepAlive } from './keepalive.ts';

function setup(intervalMs = 5000, count = 3): { clock: FakeClock; ka: KeepAlive; log: string[] } {
  const clock = new FakeClock(0);
  const log: string[] = [];
  const ka = new KeepAlive({
    intervalMs,
    count,
    clock,
    sendPing: () => log.push(`ping@${clock.now()}`),
    onDead: () => log.push(`dead@${clock.now()}`),
  });
  return { clock, ka, log };
}

describe('KeepAlive', () => {
  it('pings after each idle interval and declares the peer dead after count unanswered pings', () => {
    const { clock, ka, log } = setup(5000, 3);
    ka.start();
    clock.advance(60_000);
    expect(log).toEqual(['ping@5000', 'ping@10000', 'ping@15000', 'dead@20000']);
    expect(ka.running).toBe(false);
  });

  it('sends nothing while packets keep arriving', () => {
    const { clock, ka, log } = setup(5000, 3);
    ka.start();
    for (let i = 0; i < 20; i++) {
      clock.advance(3000);
      ka.seen();
    }
    expect(log).toEqual([]);
  });

  it('counts from the last packet seen, and an answer resets the count', () => {
    const { clock, ka, log } = setup(5000, 2);
    ka.start();
    clock.advance(4000);
    ka.seen(); // at 4000: the next ping is due at 9000
    clock.advance(5000);
    expect(log).toEqual(['ping@9000']);
    ka.seen(); // the pong
    clock.advance(30_000);
    expect(log).toEqual(['ping@9000', 'ping@14000', 'ping@19000', 'dead@24000']);
  });

  it('stops for good on stop()', () => {
    const { clock, ka, log } = setup();
    ka.start();
    ka.stop();
    clock.advance(100_000);
    expect(log).toEqual([]);
    expect(clock.pendingCount).toBe(0);
  });
});
