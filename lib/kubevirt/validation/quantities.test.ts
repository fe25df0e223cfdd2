import { describe, expect, it } from '@jest/globals';
import type { Quantity } from '../schema/dsl.ts';
import { compareQuantities, quantityInt, quantityMilli, quantityText } from './quantities.ts';

describe('quantityText (resource.Quantity String)', () => {
  it.each<[Quantity | undefined, string]>([
    [undefined, '0'],
    ['0', '0'],
    ['0Gi', '0'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['512', '512'],
    ['1000', '1k'],
    ['2048', '2048'],
    ['100M', '100M'],
    ['1000k', '1M'],
    ['0.5', '500m'],
    ['500m', '500m'],
    ['1500m', '1500m'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['12e2', '1200'],
    ['1.5e3', '1500'],
    ['1n', '1n'],
    ['0.1n', '1n'],
    ['-1Gi', '-1Gi'],
    ['-0.5', '-500m'],
    ['512Ki', '512Ki'],
    ['1023Ki', '1023Ki'],
    ['100Ki', '100Ki'],
    [2, '2'],
    [1073741824, '1073741824'],
  ])('%s → %s', (q, text) => {
    expect(quantityText(q)).toBe(text);
  });
});

describe('Value, MilliValue, Cmp', () => {
  it.each<[Quantity | undefined, bigint, bigint]>([
    [undefined, 0n, 0n],
    ['1Gi', 1073741824n, 1073741824000n],
    ['500m', 1n, 500n],
    ['1.5', 2n, 1500n],
    ['-500m', -1n, -500n],
    ['1n', 1n, 1n],
    ['100M', 100000000n, 100000000000n],
  ])('%s', (q, value, milli) => {
    expect([quantityInt(q), quantityMilli(q)]).toEqual([value, milli]);
  });

  it.each<[Quantity | undefined, Quantity | undefined, number]>([
    ['1M', '1M', 0],
    ['1Mi', '1M', 1],
    ['999k', '1M', -1],
    ['1000k', '1M', 0],
    [undefined, '0', 0],
    ['0.1n', '1n', 0],
    ['1e3', 1000, 0],
  ])('%s vs %s', (a, b, sign) => {
    expect(compareQuantities(a, b)).toBe(sign);
  });
});
