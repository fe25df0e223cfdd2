import { describe, expect, it } from '@jest/globals';
import { parseGoDuration } from './go-duration.ts';

describe('parseGoDuration', () => {
  it.each<[string, number | undefined]>([
    ['0', 0],
    ['+0', 0],
    ['-0', 0],
    ['5m0s', 300e9],
    ['1h', 3600e9],
    ['1.5h', 5400e9],
    ['.5s', 0.5e9],
    ['1.s', 1e9],
    ['-2m', -120e9],
    ['+3s', 3e9],
    ['10ms', 10e6],
    ['7us', 7000],
    ['7µs', 7000],
    ['7μs', 7000],
    ['9ns', 9],
    ['1h2m3s4ms', 3723.004e9],
    ['', undefined],
    ['-', undefined],
    ['s', undefined],
    ['.s', undefined],
    ['5', undefined],
    ['5 s', undefined],
    ['5S', undefined],
    ['1d', undefined],
    ['3000000h', undefined],
  ])('%j is %p ns', (text, ns) => {
    const got = parseGoDuration(text);
    if (ns === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(ns, 0);
  });
});
