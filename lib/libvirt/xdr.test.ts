import { describe, expect, it } from '@jest/globals';
import * as x from './xdr.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytes = (h: string): Buffer => Buffer.from(h.replace(/\s/g, ''), 'hex');

describe('xdr round trips with exact wire bytes', () => {
  const domain = x.struct({ name: x.string(), uuid: x.fixedOpaque(4), id: x.int });
  it.each<{ name: string; codec: x.Codec<unknown>; value: unknown; wire: string }>([
    { name: 'int 1', codec: x.int, value: 1, wire: '00000001' },
    { name: 'int -1', codec: x.int, value: -1, wire: 'ffffffff' },
    { name: 'int min', codec: x.int, value: -2147483648, wire: '80000000' },
    { name: 'uint max', codec: x.uint, value: 4294967295, wire: 'ffffffff' },
    { name: 'hyper -2', codec: x.hyper, value: -2n, wire: 'ffffffff fffffffe' },
    { name: 'uhyper 2^63', codec: x.uhyper, value: 2n ** 63n, wire: '80000000 00000000' },
    { name: 'uhyper 9000000 (libvirt 9.0.0)', codec: x.uhyper, value: 9000000n, wire: '00000000 00895440' },
    { name: 'double 1.5', codec: x.double, value: 1.5, wire: '3ff80000 00000000' },
    { name: 'bool true', codec: x.bool, value: true, wire: '00000001' },
    { name: 'bool false', codec: x.bool, value: false, wire: '00000000' },
    { name: 'empty string', codec: x.string(), value: '', wire: '00000000' },
    { name: 'string padded to 4', codec: x.string(), value: 'abcde', wire: '00000005 61626364 65000000' },
    { name: 'string of 4, no padding', codec: x.string(), value: 'qemu', wire: '00000004 71656d75' },
    { name: 'utf-8 string', codec: x.string(), value: 'é', wire: '00000002 c3a90000' },
    { name: 'fixed opaque 3', codec: x.fixedOpaque(3), value: bytes('010203'), wire: '01020300' },
    { name: 'var opaque 2', codec: x.opaque(), value: bytes('abcd'), wire: '00000002 abcd0000' },
    { name: 'optional absent', codec: x.optional(x.int), value: null, wire: '00000000' },
    { name: 'optional present', codec: x.optional(x.int), value: 7, wire: '00000001 00000007' },
    { name: 'array of uint', codec: x.array(x.uint), value: [1, 2], wire: '00000002 00000001 00000002' },
    { name: 'empty array', codec: x.array(x.string()), value: [], wire: '00000000' },
    { name: 'fixed array', codec: x.fixedArray(x.int, 2), value: [3, 4], wire: '00000003 00000004' },
    {
      name: 'struct in key order',
      codec: domain,
      value: { name: 'vm', uuid: bytes('deadbeef'), id: -1 },
      wire: '00000002 766d0000 deadbeef ffffffff',
    },
    {
      name: 'union arm by tag',
      codec: x.union<number | string>({ 1: x.int, 7: x.string() }),
      value: { tag: 7, value: 'ab' },
      wire: '00000007 00000002 61620000',
    },
    { name: 'empty (void)', codec: x.empty, value: undefined, wire: '' },
  ])('$name', ({ codec, value, wire }) => {
    const c = codec;
    const encoded = x.encode(c, value);
    expect(hex(encoded)).toBe(wire.replace(/\s/g, ''));
    expect(x.decode(c, encoded)).toEqual(value);
  });
});

describe('xdr encode rejects values the type cannot hold', () => {
  it.each<{ name: string; codec: x.Codec<unknown>; value: unknown }>([
    { name: 'int too large', codec: x.int, value: 2 ** 31 },
    { name: 'int not integral', codec: x.int, value: 1.5 },
    { name: 'uint negative', codec: x.uint, value: -1 },
    { name: 'hyper too large', codec: x.hyper, value: 2n ** 63n },
    { name: 'uhyper negative', codec: x.uhyper, value: -1n },
    { name: 'fixed opaque of the wrong size', codec: x.fixedOpaque(16), value: bytes('00') },
    { name: 'fixed array of the wrong size', codec: x.fixedArray(x.int, 2), value: [1] },
    { name: 'union tag without an arm', codec: x.union({ 1: x.int }), value: { tag: 2, value: 0 } },
  ])('$name', ({ codec, value }) => {
    expect(() => x.encode(codec, value)).toThrow(/xdr/);
  });
});

describe('xdr decode rejects malformed input', () => {
  it.each<{ name: string; codec: x.Codec<unknown>; wire: string; err: RegExp }>([
    { name: 'short int', codec: x.int, wire: '000001', err: /need 4 bytes/ },
    { name: 'string longer than the buffer', codec: x.string(), wire: '00000008 6162', err: /need 8 bytes/ },
    {
      name: 'string over its limit',
      codec: x.string(3),
      wire: '00000004 61626364',
      err: /exceeds its limit 3/,
    },
    {
      name: 'array over its limit',
      codec: x.array(x.int, 1),
      wire: '00000002 00000001 00000002',
      err: /limit/,
    },
    { name: 'bool of 2', codec: x.bool, wire: '00000002', err: /bool must be 0 or 1/ },
    { name: 'optional with a bad flag', codec: x.optional(x.int), wire: '00000005', err: /bool/ },
    {
      name: 'union tag without an arm',
      codec: x.union({ 1: x.int }),
      wire: '00000009',
      err: /no arm for tag 9/,
    },
    { name: 'trailing bytes', codec: x.int, wire: '00000001 00000000', err: /4 trailing bytes/ },
  ])('$name', ({ codec, wire, err }) => {
    let caught: unknown;
    try {
      x.decode(codec, bytes(wire));
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'KV_ERR_DECODE', message: expect.stringMatching(err) as unknown });
  });
});

describe('XdrWriter', () => {
  it('grows past its initial size and keeps earlier bytes', () => {
    const w = new x.XdrWriter(4);
    for (let i = 0; i < 100; i++) w.uint32(i);
    const out = w.finish();
    expect(out.length).toBe(400);
    expect(out.readUInt32BE(0)).toBe(0);
    expect(out.readUInt32BE(396)).toBe(99);
  });

  it('decodes from a view into a larger buffer at an offset', () => {
    const big = bytes('ffffffff 00000003 616263 00 ffffffff');
    expect(x.decode(x.string(), big.subarray(4, 12))).toBe('abc');
  });
});
