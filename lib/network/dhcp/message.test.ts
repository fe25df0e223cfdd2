import { describe, expect, it } from '@jest/globals';
import { DhcpDecodeError, DhcpValueError, type DecodeProblem } from './errors.ts';
import {
  BOOTREPLY,
  BOOTREQUEST,
  decodeMessage,
  encodeMessage,
  macBytes,
  macText,
  optionData,
} from './message.ts';
import type { DhcpMessage } from './message.ts';

const zeros = (n: number): number[] => Array<number>(n).fill(0);
const ascii = (s: string): number[] => [...Buffer.from(s, 'ascii')];

/** A DHCPDISCOVER as a guest broadcasts it, octet by octet (RFC 2131 §2, figure 1). */
const DISCOVER_BYTES = Buffer.from([
  ...[1, 1, 6, 0], // op BOOTREQUEST, htype Ethernet, hlen 6, hops 0
  ...[0x39, 0x03, 0xf3, 0x26], // xid
  ...[0, 3], // secs
  ...[0x80, 0], // flags: broadcast
  ...zeros(16), // ciaddr, yiaddr, siaddr, giaddr
  ...[0x02, 0x00, 0x00, 0x0a, 0x00, 0x02], // chaddr
  ...zeros(10), // rest of chaddr
  ...zeros(64), // sname
  ...zeros(128), // file
  ...[99, 130, 83, 99], // magic cookie
  ...[53, 1, 1], // message type DISCOVER
  ...[55, 4, 1, 3, 6, 15], // parameter request list
  ...[12, 2, ...ascii('vm')], // hostname
  255, // end
  ...zeros(300 - 240 - 14), // zeros after the 14 option bytes, to BOOTP's 300
]);

const DISCOVER: DhcpMessage = {
  op: BOOTREQUEST,
  hops: 0,
  xid: 0x3903f326,
  secs: 3,
  broadcast: true,
  ciaddr: '0.0.0.0',
  yiaddr: '0.0.0.0',
  siaddr: '0.0.0.0',
  giaddr: '0.0.0.0',
  chaddr: '02:00:00:0a:00:02',
  sname: '',
  file: '',
  options: [
    { code: 53, data: Buffer.from([1]) },
    { code: 55, data: Buffer.from([1, 3, 6, 15]) },
    { code: 12, data: Buffer.from('vm') },
  ],
};

const ACK: DhcpMessage = {
  ...DISCOVER,
  op: BOOTREPLY,
  hops: 1,
  xid: 0xffffffff,
  secs: 65535,
  broadcast: false,
  ciaddr: '10.0.2.2',
  yiaddr: '10.0.2.2',
  siaddr: '10.0.2.1',
  giaddr: '192.168.1.1',
  chaddr: 'fe:ff:ff:ff:ff:ff',
  sname: 'server',
  file: 'x'.repeat(128),
  options: [
    { code: 53, data: Buffer.from([5]) },
    { code: 80, data: Buffer.alloc(0) },
    { code: 119, data: Buffer.from(Array.from({ length: 600 }, (_, i) => i % 256)) },
  ],
};

/** A header with the cookie and these bytes as options; `patch` changes header octets. */
function packet(options: number[], patch: Record<number, number> = {}): Buffer {
  const bytes = Buffer.concat([DISCOVER_BYTES.subarray(0, 240), Buffer.from(options)]);
  for (const [at, value] of Object.entries(patch)) bytes[Number(at)] = value;
  return bytes;
}

describe('DHCP messages', () => {
  it('encodes a DISCOVER byte for byte', () => {
    expect(encodeMessage(DISCOVER).toString('hex')).toBe(DISCOVER_BYTES.toString('hex'));
  });

  it('decodes a DISCOVER', () => {
    expect(decodeMessage(DISCOVER_BYTES)).toEqual(DISCOVER);
    expect(optionData(decodeMessage(DISCOVER_BYTES), 55)).toEqual(Buffer.from([1, 3, 6, 15]));
    expect(optionData(decodeMessage(DISCOVER_BYTES), 50)).toBeUndefined();
  });

  it.each<[string, DhcpMessage]>([
    ['a DISCOVER', DISCOVER],
    ['a reply with every header field set, an empty option and a 600-byte one', ACK],
  ])('round-trips %s', (_what, message) => {
    expect(decodeMessage(encodeMessage(message))).toEqual(message);
  });

  it('splits a value over 255 bytes into options of one code (RFC 3396)', () => {
    const bytes = encodeMessage(ACK);
    const at = 240 + 3 + 2;
    expect([bytes[at], bytes[at + 1]]).toEqual([119, 255]);
    expect([bytes[at + 257], bytes[at + 258]]).toEqual([119, 255]);
    expect([bytes[at + 514], bytes[at + 515]]).toEqual([119, 90]);
    expect(bytes[at + 516 + 90]).toBe(255);
  });

  it.each<[string, number[], { code: number; data: number[] }[]]>([
    [
      'pads between options',
      [0, 53, 1, 3, 0, 0, 50, 4, 10, 0, 2, 2, 255],
      [
        { code: 53, data: [3] },
        { code: 50, data: [10, 0, 2, 2] },
      ],
    ],
    ['no end option', [53, 1, 3], [{ code: 53, data: [3] }]],
    ['bytes after the end option', [53, 1, 3, 255, 12, 200], [{ code: 53, data: [3] }]],
    ['no options', [], []],
    [
      'a split option, joined in the place of its first part',
      [12, 1, 118, 53, 1, 1, 12, 1, 109, 255],
      [
        { code: 12, data: [118, 109] },
        { code: 53, data: [1] },
      ],
    ],
  ])('reads options with %s', (_what, options, expected) => {
    const decoded = decodeMessage(packet(options)).options;
    expect(decoded.map((o) => ({ code: o.code, data: [...o.data] }))).toEqual(expected);
  });

  it('reads a message inside a larger buffer', () => {
    const outer = Buffer.concat([Buffer.from([7, 7, 7]), DISCOVER_BYTES]);
    expect(decodeMessage(outer.subarray(3))).toEqual(DISCOVER);
  });

  it.each<[string, Buffer, DecodeProblem]>([
    ['an empty packet', Buffer.alloc(0), 'short'],
    ['a packet without the cookie', DISCOVER_BYTES.subarray(0, 236), 'short'],
    ['a packet one byte short of the cookie', DISCOVER_BYTES.subarray(0, 239), 'short'],
    ['a wrong cookie', packet([255], { 236: 98 }), 'cookie'],
    ['op 3', packet([255], { 0: 3 }), 'op'],
    ['op 0', packet([255], { 0: 0 }), 'op'],
    ['htype 6 (IEEE 802)', packet([255], { 1: 6 }), 'hardware'],
    ['hlen 16', packet([255], { 2: 16 }), 'hardware'],
    ['hlen 0', packet([255], { 2: 0 }), 'hardware'],
    ['an option length past the end', packet([53, 1, 1, 12, 10, 118, 109]), 'option-overrun'],
    ['an option code with no length byte', packet([53, 1, 1, 12]), 'option-overrun'],
    ['a length of 255 one byte short', packet([12, 255, ...zeros(254)]), 'option-overrun'],
  ])('refuses %s', (_what, bytes, problem) => {
    const attempt = (): unknown => decodeMessage(bytes);
    expect(attempt).toThrow(DhcpDecodeError);
    try {
      attempt();
    } catch (err) {
      expect(err).toMatchObject({ code: 'KV_ERR_DECODE', problem });
    }
  });

  it.each<[string, Partial<DhcpMessage>, string]>([
    ['a bad client address', { chaddr: '02:00:00:0a:00' }, 'chaddr'],
    ['a bad ciaddr', { ciaddr: 'fd10::2' }, 'ciaddr'],
    ['a long sname', { sname: 's'.repeat(65) }, 'sname'],
    ['a long file', { file: 'f'.repeat(129) }, 'file'],
    ['option code 0', { options: [{ code: 0, data: Buffer.alloc(0) }] }, 'option 0'],
    ['option code 255', { options: [{ code: 255, data: Buffer.alloc(0) }] }, 'option 255'],
  ])('does not encode %s', (_what, change, field) => {
    expect(() => encodeMessage({ ...DISCOVER, ...change })).toThrow(DhcpValueError);
    expect(() => encodeMessage({ ...DISCOVER, ...change })).toThrow(new RegExp(`^${field}: `));
  });

  it.each<[string, string]>([
    ['02:00:00:0A:00:02', '02:00:00:0a:00:02'],
    ['02-00-00-0a-00-02', '02:00:00:0a:00:02'],
  ])('reads the MAC %s as %s', (text, canonical) => {
    expect(macText(macBytes(text, 'clientMac'))).toBe(canonical);
  });

  it.each(['', '02:00:00:0a:00', '0200000a0002', '02:00:00:0a:00:0g'])('refuses the MAC %j', (text) => {
    expect(() => macBytes(text, 'clientMac')).toThrow(DhcpValueError);
  });
});
