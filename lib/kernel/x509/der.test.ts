import { describe, expect, it } from '@jest/globals';
import {
  derBitString,
  derBoolean,
  derDirectoryString,
  derExplicit,
  derIa5String,
  derImplicit,
  derInteger,
  derNamedBits,
  derNull,
  derOctetString,
  derOid,
  derPrintableString,
  derSequence,
  derSet,
  derTime,
  derUtf8String,
} from './der.ts';

const hex = (b: Buffer): string => b.toString('hex');
const ascii = (s: string): string => Buffer.from(s, 'latin1').toString('hex');

describe('DER encodings (X.690 and RFC 5280 examples)', () => {
  it.each<[string, () => Buffer, string]>([
    ['BOOLEAN true', () => derBoolean(true), '0101ff'],
    ['BOOLEAN false', () => derBoolean(false), '010100'],
    ['INTEGER 0', () => derInteger(0), '020100'],
    ['INTEGER 127', () => derInteger(127), '02017f'],
    ['INTEGER 128 gets a leading zero', () => derInteger(128), '02020080'],
    ['INTEGER 256', () => derInteger(256), '02020100'],
    ['INTEGER 2^64', () => derInteger(1n << 64n), '0209010000000000000000'],
    ['INTEGER of 16 0xff octets', () => derInteger((1n << 128n) - 1n), `021100${'ff'.repeat(16)}`],
    ['BIT STRING of whole octets', () => derBitString(Buffer.of(0x01, 0x02)), '0303000102'],
    ['BIT STRING of 18 bits', () => derBitString(Buffer.of(0x6e, 0x5d, 0xc0), 18), '0304066e5dc0'],
    ['named bits: CA key usage', () => derNamedBits([0, 5, 6]), '03020186'],
    ['named bits: leaf key usage', () => derNamedBits([0, 2]), '030205a0'],
    ['named bits: bit 8', () => derNamedBits([8]), '0303070080'],
    ['named bits: none', () => derNamedBits([]), '030100'],
    ['OCTET STRING', () => derOctetString(Buffer.of(1, 2)), '04020102'],
    ['NULL', () => derNull(), '0500'],
    ['OID 2.5.4.3', () => derOid('2.5.4.3'), '0603550403'],
    ['OID rsadsi', () => derOid('1.2.840.113549'), '06062a864886f70d'],
    ['OID ecdsa-with-SHA256', () => derOid('1.2.840.10045.4.3.2'), '06082a8648ce3d040302'],
    ['OID 2.999.3 (first arcs over 127)', () => derOid('2.999.3'), '0603883703'],
    ['SEQUENCE empty', () => derSequence([]), '3000'],
    ['SEQUENCE of two', () => derSequence([derNull(), derBoolean(true)]), '300505000101ff'],
    ['SET OF sorted by encoding', () => derSet([derInteger(2), derInteger(1)]), '3106020101020102'],
    ['UTF8String', () => derUtf8String('é'), '0c02c3a9'],
    ['PrintableString', () => derPrintableString('kube:api-1'), `130a${ascii('kube:api-1')}`],
    ['directory string, printable', () => derDirectoryString('a b'), `1303${ascii('a b')}`],
    ['directory string with @ is UTF8String', () => derDirectoryString('a@1'), `0c03${ascii('a@1')}`],
    ['IA5String', () => derIa5String('a.b'), `1603${ascii('a.b')}`],
    ['UTCTime 2049', () => derTime(new Date('2049-12-31T23:59:59.999Z')), `170d${ascii('491231235959Z')}`],
    ['UTCTime 1950', () => derTime(new Date('1950-01-01T00:00:00Z')), `170d${ascii('500101000000Z')}`],
    [
      'GeneralizedTime 2050',
      () => derTime(new Date('2050-01-01T00:00:00Z')),
      `180f${ascii('20500101000000Z')}`,
    ],
    [
      'GeneralizedTime 1949',
      () => derTime(new Date('1949-12-31T23:59:59Z')),
      `180f${ascii('19491231235959Z')}`,
    ],
    ['[0] EXPLICIT', () => derExplicit(0, derInteger(2)), 'a003020102'],
    ['[3] EXPLICIT', () => derExplicit(3, derSequence([])), 'a3023000'],
    ['[2] IMPLICIT IA5String (dNSName)', () => derImplicit(2, derIa5String('a')), '820161'],
    [
      '[7] IMPLICIT OCTET STRING (iPAddress)',
      () => derImplicit(7, derOctetString(Buffer.of(127, 0, 0, 1))),
      '87047f000001',
    ],
    ['[0] IMPLICIT SEQUENCE stays constructed', () => derImplicit(0, derSequence([])), 'a000'],
  ])('%s', (_name, encode, expected) => {
    expect(hex(encode())).toBe(expected);
  });

  it.each<[number, string]>([
    [127, '7f'],
    [128, '8180'],
    [255, '81ff'],
    [256, '820100'],
    [70000, '83011170'],
  ])('a length of %d is written as %s', (length, octets) => {
    const encoded = derOctetString(Buffer.alloc(length));
    expect(hex(encoded.subarray(1, 1 + octets.length / 2))).toBe(octets);
    expect(encoded.length).toBe(1 + octets.length / 2 + length);
  });

  it.each<[string, () => Buffer]>([
    ['a negative INTEGER', () => derInteger(-1)],
    ['a one-arc OID', () => derOid('1')],
    ['an OID with first arc 3', () => derOid('3.1')],
    ['an OID 1.40', () => derOid('1.40')],
    ['an OID with a letter', () => derOid('1.a.3')],
    ['a PrintableString with @', () => derPrintableString('a@b')],
    ['a non-ASCII IA5String', () => derIa5String('é')],
    ['a BIT STRING with more bits than octets', () => derBitString(Buffer.of(1), 9)],
    ['a BIT STRING with 8 unused bits', () => derBitString(Buffer.of(1, 2), 8)],
    ['tag number 31', () => derExplicit(31, derNull())],
    ['a year past 9999', () => derTime(new Date('+010000-01-01T00:00:00Z'))],
    ['an invalid date', () => derTime(new Date(Number.NaN))],
  ])('refuses %s with KV_ERR_INVALID', (_name, encode) => {
    expect(encode).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});
