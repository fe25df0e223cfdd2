import { describe, expect, it } from '@jest/globals';
import { VIR_ERR, VIR_FROM } from './error-codes.ts';
import {
  decodeRemoteError,
  encodePacket,
  isLibvirtError,
  isNoDomain,
  LibvirtError,
  MESSAGE_STATUS,
  MESSAGE_TYPE,
  PacketReader,
  REMOTE_PROGRAM,
  remoteErrorCodec,
  type Header,
  type RemoteError,
} from './protocol.ts';
import { encode } from './xdr.ts';

const header = (over: Partial<Header> = {}): Header => ({
  program: REMOTE_PROGRAM,
  version: 1,
  procedure: 1,
  type: MESSAGE_TYPE.CALL,
  serial: 7,
  status: MESSAGE_STATUS.OK,
  ...over,
});

describe('encodePacket', () => {
  it('writes the total length, the six header words, then the payload', () => {
    const p = encodePacket(header({ procedure: 4, serial: 0x01020304 }), Buffer.from('abcd'));
    expect(p.toString('hex')).toBe(
      '00000020' + '20008086' + '00000001' + '00000004' + '00000000' + '01020304' + '00000000' + '61626364',
    );
  });

  it('encodes an ERROR reply status and a negative procedure as signed words', () => {
    const p = encodePacket(header({ procedure: -1, type: MESSAGE_TYPE.REPLY, status: MESSAGE_STATUS.ERROR }));
    expect(p.length).toBe(28);
    expect(p.readInt32BE(12)).toBe(-1);
    expect(p.readInt32BE(16)).toBe(1);
    expect(p.readInt32BE(24)).toBe(1);
  });
});

/** Cuts bytes at the given offsets. */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const o of [...offsets, bytes.length]) {
    out.push(bytes.subarray(prev, o));
    prev = o;
  }
  return out;
}

describe('PacketReader', () => {
  const a = encodePacket(header({ serial: 1 }), Buffer.from('first!!!'));
  const b = encodePacket(header({ serial: 2, type: MESSAGE_TYPE.MESSAGE }));
  const c = encodePacket(header({ serial: 3 }), Buffer.alloc(1000, 7));
  const stream = Buffer.concat([a, b, c]);

  it.each([
    { name: 'one chunk', offsets: [] },
    { name: 'split inside the length word', offsets: [2] },
    { name: 'split inside a header', offsets: [10, 40] },
    { name: 'split exactly between packets', offsets: [a.length, a.length + b.length] },
    { name: 'every byte a chunk', offsets: Array.from({ length: stream.length - 1 }, (_, i) => i + 1) },
  ])('yields the packets whole and in order: $name', ({ offsets }) => {
    const r = new PacketReader();
    const got = cut(stream, offsets).flatMap((chunk) => r.push(chunk));
    expect(got.map((p) => p.header.serial)).toEqual([1, 2, 3]);
    expect(got[0]?.payload.toString()).toBe('first!!!');
    expect(got[1]?.header.type).toBe(MESSAGE_TYPE.MESSAGE);
    expect(got[1]?.payload.length).toBe(0);
    expect(got[2]?.payload).toEqual(Buffer.alloc(1000, 7));
    expect(r.bufferedBytes).toBe(0);
  });

  it('keeps a partial packet buffered until the rest arrives', () => {
    const r = new PacketReader();
    expect(r.push(a.subarray(0, 20))).toEqual([]);
    expect(r.bufferedBytes).toBe(20);
    expect(r.push(a.subarray(20)).map((p) => p.header.serial)).toEqual([1]);
  });

  it.each([
    { name: 'shorter than a header', len: 27 },
    { name: 'larger than the limit', len: 0x7fffffff },
  ])('rejects a packet length $name', ({ len }) => {
    const bad = Buffer.alloc(4);
    bad.writeUInt32BE(len, 0);
    expect(() => new PacketReader().push(bad)).toThrow(/bad packet length/);
  });
});

describe('LibvirtError', () => {
  const wire: RemoteError = {
    code: VIR_ERR.NO_DOMAIN,
    domain: VIR_FROM.QEMU,
    message: "Domain not found: no domain with matching name 'x'",
    level: 2,
    dom: null,
    str1: 'Domain not found',
    str2: null,
    str3: null,
    int1: -1,
    int2: -1,
    net: null,
  };

  it('is decoded from an ERROR reply payload with code, domain, level and message', () => {
    const err = decodeRemoteError(encode(remoteErrorCodec, wire));
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({
      libvirtCode: 42,
      libvirtDomain: 10,
      level: 2,
      codeName: 'VIR_ERR_NO_DOMAIN',
      domainName: 'VIR_FROM_QEMU',
      message: "Domain not found: no domain with matching name 'x'",
      code: 'KV_ERR_LIBVIRT',
    });
    expect(isNoDomain(err)).toBe(true);
    expect(isLibvirtError(err, VIR_ERR.OPERATION_INVALID)).toBe(false);
    expect(isNoDomain(new Error('x'))).toBe(false);
  });

  it('decodes an error that names a domain', () => {
    const withDom = { ...wire, dom: { name: 'vm', uuid: new Uint8Array(16).fill(1), id: 3 } };
    expect(decodeRemoteError(encode(remoteErrorCodec, withDom)).libvirtCode).toBe(42);
  });

  it.each([
    { code: 86, name: 'VIR_ERR_AGENT_UNRESPONSIVE' },
    { code: 41, name: 'VIR_WAR_NO_NETWORK' },
    { code: 9999, name: 'VIR_ERR_9999' },
  ])('names code $code as $name', ({ code, name }) => {
    expect(new LibvirtError({ code, domain: 0, message: null, level: 2 }).codeName).toBe(name);
  });

  it('uses the code name as the message when libvirt sent none', () => {
    expect(new LibvirtError({ code: 55, domain: 10, message: null, level: 2 }).message).toBe(
      'VIR_ERR_OPERATION_INVALID',
    );
  });
});
