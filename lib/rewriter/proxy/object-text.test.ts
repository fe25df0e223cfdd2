import { describe, expect, it } from '@jest/globals';
import { rawMember, scanObject, withMembers } from './object-text.ts';

describe('scanObject', () => {
  it('finds every top-level member and its raw value', () => {
    const text = ' { "a" : "x\\"}{" , "b\\u0041":[1,{"c":"]"}], "n": -1.5e3 ,"t":true,"z":null,"o":{} } ';
    const o = scanObject(text);
    expect(o?.keys).toEqual(['a', 'bA', 'n', 't', 'z', 'o']);
    expect(o && ['a', 'bA', 'n', 't', 'z', 'o'].map((k) => rawMember(o, k))).toEqual([
      '"x\\"}{"',
      '[1,{"c":"]"}]',
      '-1.5e3',
      'true',
      'null',
      '{}',
    ]);
  });

  it('handles strings ending in escaped backslashes', () => {
    const o = scanObject('{"a":"x\\\\","b":"\\\\\\""}');
    expect(o && [rawMember(o, 'a'), rawMember(o, 'b')]).toEqual(['"x\\\\"', '"\\\\\\""']);
  });

  it.each(['', '[]', '"s"', '{', '{"a"}', '{"a":1,}', '{"a":1} x', '{"a":"unterminated}', '{"a":{"b":1}'])(
    'says %j is not one object',
    (text) => {
      expect(scanObject(text)).toBeUndefined();
    },
  );

  it('reads an empty object', () => {
    expect(scanObject(' {} ')).toEqual({ text: ' {} ', keys: [], spans: [], rest: 2 });
  });
});

describe('withMembers', () => {
  it('encodes changed members, drops removed ones, keeps the rest as they came, appends new ones', () => {
    const o = scanObject('{"a": 1 ,"b":{"x" : 2},"c":"keep  me"}');
    if (o === undefined) throw new Error('scan failed');
    const out = withMembers(
      o,
      new Map<string, unknown>([
        ['a', { y: 3 }],
        ['b', undefined],
        ['d', [true]],
      ]),
    );
    expect(out).toBe('{"a":{"y":3},"c":"keep  me","d":[true]}');
  });
});
