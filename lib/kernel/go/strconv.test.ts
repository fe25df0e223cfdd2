import { describe, expect, it } from '@jest/globals';
import { goDurationError, goQuote, parseGoFloat, timeQuote } from './strconv.ts';

describe('goQuote (strconv.Quote)', () => {
  it.each<[string, string]>([
    ['plain', '"plain"'],
    ['a "b" \\ c', '"a \\"b\\" \\\\ c"'],
    ['\n\t\r\x07\v\f\b', '"\\n\\t\\r\\a\\v\\f\\b"'],
    ['\x01\x7f', '"\\x01\\x7f"'],
    ['é ü 日本', '"é ü 日本"'],
    ['\u2028\ufeff', '"\\u2028\\ufeff"'],
  ])('%j → %s', (s, quoted) => {
    expect(goQuote(s)).toBe(quoted);
  });
});

describe('timeQuote', () => {
  it('escapes quotes and backslashes, and control and non-ASCII bytes as \\x', () => {
    expect(timeQuote('a"\\\né')).toBe('"a\\"\\\\\\x0a\\xc3\\xa9"');
  });
});

describe('parseGoFloat (strconv.ParseFloat, 64 bits)', () => {
  it.each<[string, number]>([
    ['1', 1],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['2.', 2],
    ['+1e3', 1000],
    ['-1E-2', -0.01],
    ['0x1p-2', 0.25],
    ['0x1.8p1', 3],
    ['Inf', Infinity],
    ['-infinity', -Infinity],
    ['NaN', Number.NaN],
    ['1e-400', 0],
    ['1_0', 10],
    ['0x_1p0', 1],
  ])('%s → %d', (s, value) => {
    expect(parseGoFloat(s)).toEqual({ value });
  });

  it.each<[string, string]>([
    ['', 'strconv.ParseFloat: parsing "": invalid syntax'],
    ['1.5x', 'strconv.ParseFloat: parsing "1.5x": invalid syntax'],
    [' 1', 'strconv.ParseFloat: parsing " 1": invalid syntax'],
    ['+nan', 'strconv.ParseFloat: parsing "+nan": invalid syntax'],
    ['0x1', 'strconv.ParseFloat: parsing "0x1": invalid syntax'],
    ['1__0', 'strconv.ParseFloat: parsing "1__0": invalid syntax'],
    ['_1', 'strconv.ParseFloat: parsing "_1": invalid syntax'],
    ['1_.5', 'strconv.ParseFloat: parsing "1_.5": invalid syntax'],
    ['1e400', 'strconv.ParseFloat: parsing "1e400": value out of range'],
  ])('%j is refused', (s, error) => {
    expect(parseGoFloat(s)).toEqual({ error });
  });
});

describe('goDurationError (time.ParseDuration)', () => {
  it.each<[string, string]>([
    ['', 'time: invalid duration ""'],
    ['12', 'time: missing unit in duration "12"'],
    ['1h30', 'time: missing unit in duration "1h30"'],
    ['3d', 'time: unknown unit "d" in duration "3d"'],
    ['-h', 'time: invalid duration "-h"'],
    ['9999999999999h', 'time: invalid duration "9999999999999h"'],
  ])('%j', (s, message) => {
    expect(goDurationError(s)).toBe(message);
  });
});

describe('goQuote, as the handler quotes a launcher error', () => {
  it.each<[string, string]>([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['a\\b', '"a\\\\b"'],
    ['line\nnext\ttab\r', '"line\\nnext\\ttab\\r"'],
    ['bell\x07 nul\x00 del\x7f', '"bell\\a nul\\x00 del\\x7f"'],
    ['héllo ✓', '"héllo ✓"'],
    ['zero\u200bwidth', '"zero\\u200bwidth"'],
  ])('goQuote(%j) is %s', (s, quoted) => {
    expect(goQuote(s)).toBe(quoted);
  });
});
