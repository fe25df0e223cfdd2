import { describe, it, expect } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiters.ts';
import type { RateLimiter } from './rate-limiters.ts';

function calls(limiter: RateLimiter, key: string, n: number): number[] {
  return Array.from({ length: n }, () => limiter.when(key));
}

describe('ItemExponentialFailureRateLimiter', () => {
  it.each([
    { base: 5, max: 1_000_000, n: 5, want: [5, 10, 20, 40, 80] },
    { base: 1, max: 1000, n: 12, want: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000] },
    { base: 100, max: 250, n: 4, want: [100, 200, 250, 250] },
  ])('base $base max $max gives $want', ({ base, max, n, want }) => {
    expect(calls(new ItemExponentialFailureRateLimiter(base, max), 'a', n)).toEqual(want);
  });

  it('caps instead of overflowing after many failures', () => {
    const l = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const delays = calls(l, 'a', 2000);
    expect(delays.at(-1)).toBe(1_000_000);
    expect(l.retries('a')).toBe(2000);
  });

  it('tracks keys separately and forget resets one key', () => {
    const l = new ItemExponentialFailureRateLimiter();
    calls(l, 'a', 3);
    calls(l, 'b', 1);
    expect([l.retries('a'), l.retries('b')]).toEqual([3, 1]);
    l.forget('a');
    expect([l.retries('a'), l.when('a'), l.when('b')]).toEqual([0, 5, 10]);
  });
});

describe('BucketRateLimiter', () => {
  it.each([
    { qps: 10, burst: 3, n: 6, from: 0, want: [0, 0, 0, 100, 200, 300] },
    { qps: 2, burst: 1, n: 3, from: 0, want: [0, 500, 1000] },
    { qps: 10, burst: 100, n: 102, from: 99, want: [0, 100, 200] },
  ])(
    'qps $qps burst $burst, $n calls at one instant: delays from #$from are $want',
    ({ qps, burst, n, from, want }) => {
      const got = calls(new BucketRateLimiter({ qps, burst, clock: new FakeClock() }), 'k', n);
      expect(got.slice(from)).toEqual(want);
    },
  );

  it('refills with time, never above burst', () => {
    const clock = new FakeClock();
    const l: RateLimiter = new BucketRateLimiter({ qps: 10, burst: 2, clock });
    expect(calls(l, 'k', 3)).toEqual([0, 0, 100]);
    clock.advance(100); // the reserved token is now paid back: bucket at 0
    expect(l.when('k')).toBe(100);
    clock.advance(10_000); // refills to burst only
    expect(calls(l, 'k', 3)).toEqual([0, 0, 100]);
  });

  it('is global: keys share tokens, retries are always 0', () => {
    const l: RateLimiter = new BucketRateLimiter({ qps: 1, burst: 1, clock: new FakeClock() });
    expect([l.when('a'), l.when('b')]).toEqual([0, 1000]);
    l.forget('b');
    expect(l.retries('a')).toBe(0);
  });
});

describe('MaxOfRateLimiter and the default', () => {
  it('returns the max delay and the max retries, forgetting in all', () => {
    const clock = new FakeClock();
    const l = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter(1, 1000),
      new BucketRateLimiter({ qps: 1, burst: 2, clock }),
    );
    expect(calls(l, 'a', 4)).toEqual([1, 2, 1000, 2000]);
    expect(l.retries('a')).toBe(4);
    l.forget('a');
    expect(l.retries('a')).toBe(0);
  });

  it('default limiter: exponential per key while the bucket has tokens', () => {
    const l = defaultControllerRateLimiter(new FakeClock());
    expect(calls(l, 'a', 4)).toEqual([5, 10, 20, 40]);
    expect(l.when('b')).toBe(5);
  });

  it('default limiter: the bucket dominates once 100 tokens are spent in one instant', () => {
    const l = defaultControllerRateLimiter(new FakeClock());
    const delays = Array.from({ length: 102 }, (_, i) => l.when(`k${i}`));
    expect(delays.slice(98)).toEqual([5, 5, 100, 200]);
  });
});
