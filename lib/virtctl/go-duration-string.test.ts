import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseGoDuration } from '../kubevirt/subresources/go-duration.ts';
import { formatGoDuration } from './go-duration-string.ts';

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [1, '1ns'],
    [1500, '1.5µs'],
    [2_000_000, '2ms'],
    [1_500_000_000, '1.5s'],
    [5 * 60e9, '5m0s'],
    [90e9, '1m30s'],
    [3600e9, '1h0m0s'],
    [3600e9 + 61.25e9, '1h1m1.25s'],
    [-90e9, '-1m30s'],
  ])('%d ns is %s', (ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });

  it("reads back with Go's parser (whole milliseconds up to a year)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -365 * 86_400_000, max: 365 * 86_400_000 }), (ms) => {
        const back = parseGoDuration(formatGoDuration(ms * 1e6)) ?? Number.NaN;
        expect(Math.abs(back - ms * 1e6)).toBeLessThanOrEqual(Math.abs(ms) * 1e-3);
      }),
    );
  });
});
