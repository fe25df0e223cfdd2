import { describe, expect, it } from '@jest/globals';
import { formatBinaryQuantity, isZeroQuantity, parseQuantity, quantityValue } from './quantity.ts';

describe('parseQuantity', () => {
  it.each<[string | number, number]>([
    ['1Gi', 2 ** 30],
    ['512Mi', 512 * 2 ** 20],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['2Ki', 2048],
    ['1Ti', 2 ** 40],
    ['500m', 0.5],
    ['100m', 0.1],
    ['2', 2],
    ['1k', 1000],
    ['1G', 1e9],
    ['1e3', 1000],
    ['1E6', 1e6],
    ['.5', 0.5],
    ['+3', 3],
    ['-1', -1],
    [1024, 1024],
    ['0', 0],
  ])('%p → %p', (q, expected) => {
    expect(parseQuantity(q)).toBeCloseTo(expected, 9);
  });

  it.each(['', 'Gi', '1GB', '1 Gi', 'one', '1.2.3', '1i'])('rejects %p', (q) => {
    expect(() => parseQuantity(q)).toThrow(/not a valid resource quantity/);
  });
});

describe('quantityValue', () => {
  it.each<[string, number]>([
    ['500m', 1],
    ['1500m', 2],
    ['2', 2],
    ['4', 4],
    ['1Gi', 2 ** 30],
    ['100m', 1],
    ['0', 0],
  ])('%p rounds up to %p', (q, expected) => {
    expect(quantityValue(q)).toBe(expected);
  });
});

describe('isZeroQuantity', () => {
  it.each<[string | number | undefined, boolean]>([
    [undefined, true],
    ['0', true],
    [0, true],
    ['0Gi', true],
    ['1m', false],
    ['1Gi', false],
  ])('%p → %p', (q, expected) => {
    expect(isZeroQuantity(q)).toBe(expected);
  });
});

describe('formatBinaryQuantity', () => {
  it.each<[number, string]>([
    [2 ** 30, '1Gi'],
    [4 * 2 ** 30, '4Gi'],
    [1536 * 2 ** 20, '1536Mi'],
    [2 ** 40, '1Ti'],
    [2048, '2Ki'],
    [1000, '1000'],
    [0, '0'],
  ])('%p → %p', (bytes, expected) => {
    expect(formatBinaryQuantity(bytes)).toBe(expected);
    expect(parseQuantity(expected)).toBe(bytes);
  });

  it('refuses fractions', () => {
    expect(() => formatBinaryQuantity(1.5)).toThrow(/whole binary quantity/);
  });
});
