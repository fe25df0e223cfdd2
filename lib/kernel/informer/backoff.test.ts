import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { Backoff } from './backoff.ts';

const series = (b: Backoff, n: number): number[] => Array.from({ length: n }, () => b.next());

describe('Backoff', () => {
  it('doubles from 800 ms up to the 30 s cap without jitter when random is 0', () => {
    const b = new Backoff(new FakeClock(), { random: () => 0 });
    expect(series(b, 8)).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  it.each([0, 0.3, 0.999])('jitters downwards within (base/2, base] (random %p)', (r) => {
    const b = new Backoff(new FakeClock(), { random: () => r });
    const bases = [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000];
    series(b, bases.length).forEach((d, i) => {
      const base = bases[i] ?? 0;
      expect(d).toBeLessThanOrEqual(base);
      expect(d).toBeGreaterThan(base / 2);
    });
  });

  it('gives different delays for different random draws at the cap', () => {
    const draws = [0.1, 0.9];
    const b = new Backoff(new FakeClock(), { initialMs: 30_000, random: () => draws.shift() ?? 0 });
    expect(b.next()).not.toBe(b.next());
  });

  it('starts again from the initial delay after a healthy period', () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, { random: () => 0 });
    series(b, 4);
    clock.advance(119_999);
    expect(b.next()).toBe(12800);
    clock.advance(120_000);
    expect(b.next()).toBe(800);
  });
});
