import { describe, expect, it } from '@jest/globals';
import { median, percentile, procStat } from './stats.ts';

describe('bench stats', () => {
  it.each([
    [[3, 1, 2], 50, 2],
    [[4, 1, 3, 2], 50, 3],
    [[5, 1, 4, 2, 3], 100, 5],
    [[5, 1, 4, 2, 3], 0, 1],
    [[], 50, 0],
  ])('percentile(%j, %d) = %d', (xs, p, want) => {
    expect(percentile(xs, p)).toBe(want);
  });

  it('median is the 50th percentile, NaN without samples', () => {
    expect(median([9, 1, 5, 7])).toBe(percentile([9, 1, 5, 7], 50));
    expect(median([])).toBeNaN();
  });

  it('reads this process: some resident memory and some CPU used', async () => {
    const me = await procStat(process.pid);
    expect(me.rssMiB).toBeGreaterThan(1);
    expect(me.cpuTicks).toBeGreaterThan(0);
  });
});
