import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Dhcpv6DecodeError, Dhcpv6ValueError, type DecodeProblem } from './errors.ts';
import { decodeMessage, encodeMessage, MESSAGE_TYPE, optionData, type Dhcpv6Message } from './message.ts';
import { OPTION } from './options.ts';

const hex = (text: string): number[] => [...Buffer.from(text.replace(/\s/g, ''), 'hex')];
/** An option's header and data. */
const opt = (code: number, data: number[]): number[] => [
  code >> 8,
  code & 0xff,
  data.length >> 8,
  data.length & 0xff,
  ...data,
];

const CLIENT_DUID = hex('0001 0001 2e1f3c40 024b56000002');
const IA_NA = hex('4b560002 00000e10 00001518');

/** A Solicit as dhclient -6 sends one, octet by octet (RFC 8415 §8, §21). */
const SOLICIT_BYTES = Buffer.from([
  1, // Solicit
  ...[0x12, 0xab, 0xcd], // transaction id
  ...opt(OPTION.clientId, CLIENT_DUID),
  ...opt(OPTION.requestedOptions, [0, 23, 0, 24]),
  ...opt(OPTION.elapsedTime, [0, 0]),
  ...opt(OPTION.iaNa, IA_NA),
]);

const SOLICIT: Dhcpv6Message = {
  type: MESSAGE_TYPE.solicit,
  transactionId: 0x12abcd,
  options: [
    { code: OPTION.clientId, data: Buffer.from(CLIENT_DUID) },
    { code: OPTION.requestedOptions, data: Buffer.from([0, 23, 0, 24]) },
    { code: OPTION.elapsedTime, data: Buffer.from([0, 0]) },
    { code: OPTION.iaNa, data: Buffer.from(IA_NA) },
  ],
};

const IA_ADDRESS = [...hex('fd10 0000 0002 0000 0000 0000 0000 0002'), ...hex('05250a80 05250a80')];
const LEASE_IA_NA = [...IA_NA, ...opt(OPTION.iaAddress, IA_ADDRESS)];

/** A Reply with a lease, two IA_NA, an empty option and an unknown one. */
const REPLY: Dhcpv6Message = {
  type: MESSAGE_TYPE.reply,
  transactionId: 0xffffff,
  options: [
    { code: OPTION.clientId, data: Buffer.from(CLIENT_DUID) },
    { code: OPTION.rapidCommit, data: Buffer.alloc(0) },
    { code: OPTION.iaNa, data: Buffer.from(LEASE_IA_NA) },
    { code: OPTION.iaNa, data: Buffer.from(hex('00000001 00000000 00000000')) },
    { code: 65535, data: Buffer.from('x'.repeat(300)) },
  ],
};

const header = [MESSAGE_TYPE.solicit, 0, 0, 1];

describe('DHCPv6 messages', () => {
  it('decodes a Solicit', () => {
    expect(decodeMessage(SOLICIT_BYTES)).toEqual(SOLICIT);
    expect(optionData(decodeMessage(SOLICIT_BYTES), OPTION.iaNa)).toEqual(Buffer.from(IA_NA));
    expect(optionData(decodeMessage(SOLICIT_BYTES), OPTION.rapidCommit)).toBeUndefined();
  });

  it('encodes a Solicit byte for byte', () => {
    expect(encodeMessage(SOLICIT).toString('hex')).toBe(SOLICIT_BYTES.toString('hex'));
  });

  it.each<[string, Dhcpv6Message]>([
    ['a Solicit', SOLICIT],
    ['a Reply with a lease, a repeated option, an empty one and an unknown one', REPLY],
    ['a message of an unknown type without options', { type: 200, transactionId: 0, options: [] }],
  ])('round-trips %s', (_what, message) => {
    expect(decodeMessage(encodeMessage(message))).toEqual(message);
  });

  it('reads a message inside a larger buffer', () => {
    const outer = Buffer.concat([Buffer.from([7, 7, 7]), SOLICIT_BYTES]);
    expect(decodeMessage(outer.subarray(3))).toEqual(SOLICIT);
  });

  it.each<[string, number[], DecodeProblem]>([
    ['an empty packet', [], 'short'],
    ['a packet of three bytes', [1, 0, 0], 'short'],
    ['a Relay-forward', [12, 0, ...Array<number>(32).fill(0)], 'relay'],
    ['a Relay-reply', [13, 0, ...Array<number>(32).fill(0)], 'relay'],
    [
      'three stray bytes after the options',
      [...header, ...opt(OPTION.elapsedTime, [0, 0]), 0, 1, 0],
      'option-overrun',
    ],
    ['an option length past the end', [...header, 0, 1, 0, 10, 1, 2, 3], 'option-overrun'],
    ['a Client Identifier of two bytes', [...header, ...opt(OPTION.clientId, [0, 3])], 'option-length'],
    [
      'a Client Identifier of 131 bytes',
      [...header, ...opt(OPTION.clientId, Array<number>(131).fill(1))],
      'option-length',
    ],
    ['a Server Identifier of no bytes', [...header, ...opt(OPTION.serverId, [])], 'option-length'],
    ['an IA_NA of 11 bytes', [...header, ...opt(OPTION.iaNa, IA_NA.slice(0, 11))], 'option-length'],
    [
      'an IA_NA whose option runs past it',
      [...header, ...opt(OPTION.iaNa, [...IA_NA, 0, 5, 0, 24, 1])],
      'option-overrun',
    ],
    [
      'an IA Address of 23 bytes inside an IA_NA',
      [...header, ...opt(OPTION.iaNa, [...IA_NA, ...opt(OPTION.iaAddress, IA_ADDRESS.slice(0, 23))])],
      'option-length',
    ],
    [
      'a status code of one byte inside an IA Address',
      [
        ...header,
        ...opt(OPTION.iaNa, [
          ...IA_NA,
          ...opt(OPTION.iaAddress, [...IA_ADDRESS, ...opt(OPTION.statusCode, [0])]),
        ]),
      ],
      'option-length',
    ],
    ['a Rapid Commit with data', [...header, ...opt(OPTION.rapidCommit, [1])], 'option-length'],
    [
      'an Option Request of odd length',
      [...header, ...opt(OPTION.requestedOptions, [0, 23, 0])],
      'option-length',
    ],
    ['an Elapsed Time of three bytes', [...header, ...opt(OPTION.elapsedTime, [0, 0, 0])], 'option-length'],
    [
      'DNS servers of 15 bytes',
      [...header, ...opt(OPTION.dnsServers, Array<number>(15).fill(0))],
      'option-length',
    ],
  ])('refuses %s', (_what, bytes, problem) => {
    const attempt = (): unknown => decodeMessage(Buffer.from(bytes));
    expect(attempt).toThrow(Dhcpv6DecodeError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE', problem }));
  });

  it('reads every truncation of a Reply with a lease as its first options or a Dhcpv6DecodeError', () => {
    const bytes = encodeMessage(REPLY);
    // Where each option ends: a message cut there is a whole message with fewer options.
    const ends = REPLY.options.map(
      (_, i) => encodeMessage({ ...REPLY, options: REPLY.options.slice(0, i) }).length,
    );
    for (let length = 0; length < bytes.length; length++) {
      const cut = bytes.subarray(0, length);
      const kept = ends.indexOf(length);
      if (kept < 0) expect(() => decodeMessage(cut)).toThrow(Dhcpv6DecodeError);
      else expect(decodeMessage(cut)).toEqual({ ...REPLY, options: REPLY.options.slice(0, kept) });
    }
  });

  it('reads any bytes as a message or a Dhcpv6DecodeError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeMessage(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(Dhcpv6DecodeError);
        }
      }),
    );
  });

  it.each<[string, Partial<Dhcpv6Message>, string]>([
    ['type 256', { type: 256 }, 'type'],
    ['a negative type', { type: -1 }, 'type'],
    ['a transaction id over 24 bits', { transactionId: 0x1000000 }, 'transactionId'],
    ['a fractional transaction id', { transactionId: 1.5 }, 'transactionId'],
    ['option code 65536', { options: [{ code: 65536, data: Buffer.alloc(0) }] }, 'option 65536'],
    ['an option of 65536 bytes', { options: [{ code: 16, data: Buffer.alloc(65536) }] }, 'option 16'],
  ])('does not encode %s', (_what, change, field) => {
    const attempt = (): unknown => encodeMessage({ ...SOLICIT, ...change });
    expect(attempt).toThrow(Dhcpv6ValueError);
    expect(attempt).toThrow(new RegExp(`^${field}: `));
  });
});
