import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { TokenBucket } from './rate-limiter.ts';

describe('TokenBucket.reserve', () => {
  it.each<[string, { qps: number; burst: number }, number[], number[]]>([
    // [name, limits, advance (ms) before each call, expected wait (ms) per call]
    ['burst goes out at once, then 1/qps apart', { qps: 10, burst: 3 }, [0, 0, 0, 0, 0], [0, 0, 0, 100, 200]],
    ['tokens refill with time', { qps: 10, burst: 2 }, [0, 0, 0, 300, 0], [0, 0, 100, 0, 0]],
    ['refill is capped at burst', { qps: 10, burst: 2 }, [0, 10_000, 0, 0], [0, 0, 0, 100]],
    ['fractional qps', { qps: 0.5, burst: 1 }, [0, 0], [0, 2000]],
    ['qps 0 turns the limit off', { qps: 0, burst: 1 }, [0, 0, 0], [0, 0, 0]],
  ])('%s', (_name, limits, advances, waits) => {
    const clock = new FakeClock();
    const tb = new TokenBucket({ ...limits, clock });
    const got = advances.map((ms) => {
      clock.advance(ms);
      return tb.reserve();
    });
    expect(got).toEqual(waits);
  });
});

describe('TokenBucket.take', () => {
  it('holds a call until the clock has paid its debt', async () => {
    const clock = new FakeClock();
    const tb = new TokenBucket({ qps: 1, burst: 1, clock });
    await tb.take();
    let passed = false;
    const second = tb.take().then(() => (passed = true));
    await Promise.resolve();
    expect(passed).toBe(false);
    expect(clock.pendingCount).toBe(1);
    clock.advance(999);
    await Promise.resolve();
    expect(passed).toBe(false);
    clock.advance(1);
    await second;
    expect(passed).toBe(true);
  });

  it('gives the token back when the waiter aborts', async () => {
    const clock = new FakeClock();
    const tb = new TokenBucket({ qps: 1, burst: 1, clock });
    await tb.take();
    const ac = new AbortController();
    const waiting = tb.take(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    clock.advance(1000);
    expect(tb.reserve()).toBe(0);
  });
});
