import { describe, expect, it } from '@jest/globals';
import { KvError } from '../kernel/errors/errors.ts';
import {
  formatBinaryQuantity,
  isZeroQuantity,
  parseQuantity,
  quantityProblem,
  quantityValue,
} from './quantity.ts';

const Ki = 2 ** 10;
const Mi = 2 ** 20;
const Gi = 2 ** 30;
const Ti = 2 ** 40;
const Pi = 2 ** 50;
const Ei = 2 ** 60;

// Rows drawn from the cases apimachinery's resource.Quantity accepts (quantity_test.go TestQuantityParse): every
// suffix of the three formats, signs, fractions, exponents, and the values it rounds up to a whole nano.
describe('parseQuantity', () => {
  it.each<[string | number, number]>([
    // Plain numbers, signs, leading zeros, fractions.
    ['0', 0],
    ['1', 1],
    ['+3', 3],
    ['-1', -1],
    ['007', 7],
    ['9.01', 9.01],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['+.5', 0.5],
    ['-.5', -0.5],
    ['1.', 1],
    // Binary SI, fractions allowed.
    ['1Ki', Ki],
    ['8Ki', 8 * Ki],
    ['7Mi', 7 * Mi],
    ['6Gi', 6 * Gi],
    ['5Ti', 5 * Ti],
    ['4Pi', 4 * Pi],
    ['1Ei', Ei],
    ['3Ei', 3 * Ei],
    ['1.5Ki', 1536],
    ['1.5Gi', 1.5 * Gi],
    ['0.5Mi', 0.5 * Mi],
    ['100.035Ki', 102435.84],
    ['0Gi', 0],
    // Decimal SI.
    ['5n', 5e-9],
    ['4u', 4e-6],
    ['3m', 0.003],
    ['500m', 0.5],
    ['8k', 8000],
    ['7M', 7e6],
    ['6G', 6e9],
    ['5T', 5e12],
    ['2P', 2e15],
    ['1E', 1e18],
    ['12E', 12e18],
    ['2.5P', 2.5e15],
    ['1.01E', 1.01e18],
    ['1.G', 1e9],
    ['100.035k', 100035],
    // Decimal exponents, signed.
    ['1e3', 1000],
    ['1E6', 1e6],
    ['1E-3', 0.001],
    ['1e+3', 1000],
    ['1.3E+6', 1.3e6],
    ['0.5e-2', 0.005],
    ['1.7E18', 1.7e18],
    // Rounded up (away from zero) to a whole nano, as apimachinery does.
    ['3.001n', 4e-9],
    ['1.1E-9', 2e-9],
    ['0.0000000001', 1e-9],
    ['0.00000012345', 124e-9],
    ['-3.001n', -4e-9],
    // JSON numbers.
    [1024, 1024],
    [0, 0],
    [-5, -5],
    [1.5, 1.5],
  ])('%p → %p', (q, expected) => {
    expect(parseQuantity(q)).toBeCloseTo(expected, 12);
    if (Math.abs(expected) >= 1) expect(parseQuantity(q) / expected).toBeCloseTo(1, 12);
  });

  it.each([
    ['empty', ''],
    ['a suffix alone', 'Gi'],
    ['a sign alone', '-'],
    ['a dot alone', '.'],
    ['a signed dot', '-.'],
    ['two signs', '--1'],
    ['a sign in the middle', '1+1.0M'],
    ['two dots', '1.1.M'],
    ['a leading space', ' 1'],
    ['a trailing space', '1 '],
    ['a space before the suffix', '1 Gi'],
    ['i without a unit', '1i'],
    ['.5i', '.5i'],
    ['-3.01i', '-3.01i'],
    ['a bytes unit', '1KiB'],
    ['an SI unit in bytes', '1GB'],
    ['lower-case binary', '1ki'],
    ['milli-binary', '0.1mi'],
    ['an unknown suffix', '0.1am'],
    ['an exponent without digits', '1e'],
    ['a signed exponent without digits', '-3.01e-'],
    ['a fractional exponent', '1e1.5'],
    ['an exponent beyond int32', '1e4294967297'],
    ['a word', 'lots'],
    ['a hex number', '0x10'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
  ])('rejects %s (%p)', (_, q) => {
    expect(() => parseQuantity(q)).toThrow(`quantity ${JSON.stringify(q)} is not a valid resource quantity`);
  });

  it.each([NaN, Infinity, -Infinity])('rejects the number %p', (q) => {
    expect(() => parseQuantity(q)).toThrow(/is not a valid resource quantity/);
  });

  it('names the field when the caller gives one', () => {
    const parse = (): number => parseQuantity('lots', 'spec.domain.memory.guest');
    expect(parse).toThrow(KvError);
    expect(parse).toThrow(
      expect.objectContaining({
        code: 'KV_ERR_INVALID',
        field: 'spec.domain.memory.guest',
        message: 'spec.domain.memory.guest: quantity "lots" is not a valid resource quantity',
      }),
    );
  });

  it('refuses a value beyond what a double holds instead of answering Infinity', () => {
    expect(() => parseQuantity('1e400', 'spec.x')).toThrow('spec.x: quantity "1e400" is too large');
  });
});

describe('quantityValue', () => {
  it.each<[string | number, number]>([
    ['500m', 1],
    ['1500m', 2],
    ['100m', 1],
    ['1m', 1],
    ['1n', 1],
    ['3.001n', 1],
    ['2', 2],
    ['0', 0],
    ['-0', 0],
    ['-500m', -1],
    ['1.1', 2],
    ['1.000000000000000001', 2],
    ['300m', 1],
    ['3000m', 3],
    ['1Gi', Gi],
    ['1.5Gi', 1.5 * Gi],
    ['7Pi', 7 * Pi],
    ['9P', 9e15],
    ['1e15', 1e15],
    ['0.000001e21', 1e15],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', -Number.MAX_SAFE_INTEGER],
    ['1e-2147483647', 1],
    [67108864, 64 * Mi],
  ])('%p → %p (rounded up, away from zero)', (q, expected) => {
    expect(quantityValue(q)).toBe(expected);
  });

  it.each([
    '9007199254740992',
    '8Pi',
    '1Ei',
    '1E',
    '8Ei',
    '9Ei',
    '10E',
    '1e2147483647',
    '9223372036854775807Ki',
    '-8Ei',
  ])('refuses %p: above 2^53 - 1, not exact as a number', (q) => {
    expect(() => quantityValue(q, 'spec.domain.memory.guest')).toThrow(
      `spec.domain.memory.guest: quantity ${JSON.stringify(q)} is too large: at most 9007199254740991`,
    );
  });

  it('names the field of a malformed quantity', () => {
    expect(() => quantityValue('1KiB', 'spec.domain.resources.requests.memory')).toThrow(
      'spec.domain.resources.requests.memory: quantity "1KiB" is not a valid resource quantity',
    );
  });
});

describe('isZeroQuantity', () => {
  it.each<[string | number | undefined, boolean]>([
    [undefined, true],
    ['0', true],
    [0, true],
    ['0Gi', true],
    ['-0.0e5', true],
    ['1m', false],
    ['1n', false],
    ['1e-2147483647', false],
    ['1Gi', false],
  ])('%p → %p', (q, expected) => {
    expect(isZeroQuantity(q)).toBe(expected);
  });
});

describe('quantityProblem', () => {
  it.each<[unknown, string | undefined]>([
    ['1Gi', undefined],
    [1024, undefined],
    [-1, undefined],
    ['1e400', undefined],
    ['lots', 'quantity "lots" is not a valid resource quantity'],
    [1.5, 'expected an integer or a quantity string, got the number 1.5'],
    [true, 'expected an integer or a quantity string, got a boolean'],
    [null, 'expected an integer or a quantity string, got null'],
    [{}, 'expected an integer or a quantity string, got an object'],
    [[], 'expected an integer or a quantity string, got an array'],
  ])('%p → %p', (value, problem) => {
    expect(quantityProblem(value)).toBe(problem);
  });
});

describe('formatBinaryQuantity', () => {
  it.each<[number, string]>([
    [Gi, '1Gi'],
    [4 * Gi, '4Gi'],
    [1536 * Mi, '1536Mi'],
    [Ti, '1Ti'],
    [Pi, '1Pi'],
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
