/**
 * A minimal DER encoder (X.690) for the certificates the operator issues: the universal types an X.509
 * certificate is made of, and context-specific tags. Every function returns one complete TLV. Mirrors what Go's
 * encoding/asn1 Marshal writes for crypto/x509.CreateCertificate.
 */
import { KvError } from '../errors/errors.ts';

const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

const CONSTRUCTED = 0x20;
const CONTEXT = 0x80;
/** PrintableString's alphabet (X.680 §41.4). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

function lengthOctets(n: number): Buffer {
  if (n < 0x80) return Buffer.of(n);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.of(0x80 | bytes.length, ...bytes);
}

/** One TLV: an identifier octet, the length and the contents. */
function tlv(tag: number, contents: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(tag), lengthOctets(contents.length), contents]);
}

export function derBoolean(value: boolean): Buffer {
  return tlv(TAG.boolean, Buffer.of(value ? 0xff : 0x00));
}

/** A non-negative INTEGER in the fewest octets, with a leading zero when the top bit would read as a sign. */
export function derInteger(value: bigint | number): Buffer {
  const n = BigInt(value);
  if (n < 0n) throw new KvError('KV_ERR_INVALID', 'DER INTEGER: negative values are not supported');
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return tlv(TAG.integer, (bytes[0] ?? 0) >= 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes);
}

/** A BIT STRING of whole octets, or of `bits` bits when the last octet is partly unused. */
export function derBitString(bytes: Uint8Array, bits = bytes.length * 8): Buffer {
  const unused = bytes.length * 8 - bits;
  if (unused < 0 || unused > 7) throw new KvError('KV_ERR_INVALID', 'DER BIT STRING: bit count does not fit');
  return tlv(TAG.bitString, Buffer.concat([Buffer.of(unused), bytes]));
}

/** A named-bit BIT STRING (keyUsage): bit 0 is the first octet's top bit; trailing zero bits are dropped. */
export function derNamedBits(setBits: readonly number[]): Buffer {
  const bits = setBits.length === 0 ? 0 : Math.max(...setBits) + 1;
  const bytes = Buffer.alloc(Math.ceil(bits / 8));
  for (const bit of setBits) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  return derBitString(bytes, bits);
}

export function derOctetString(bytes: Uint8Array): Buffer {
  return tlv(TAG.octetString, bytes);
}

export function derNull(): Buffer {
  return tlv(TAG.null, Buffer.alloc(0));
}

/** An OBJECT IDENTIFIER from its dotted form ('1.2.840.10045.4.3.2'). */
export function derOid(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => (/^\d+$/.test(a) ? BigInt(a) : -1n));
  const [first, second, ...rest] = arcs;
  if (
    first === undefined ||
    second === undefined ||
    arcs.some((a) => a < 0n) ||
    first > 2n ||
    (first < 2n && second > 39n)
  ) {
    throw new KvError(
      'KV_ERR_INVALID',
      `DER OID: ${JSON.stringify(dotted)} is not a dotted object identifier`,
    );
  }
  const out: number[] = [];
  for (const arc of [first * 40n + second, ...rest]) {
    const base128: number[] = [Number(arc & 0x7fn)];
    for (let v = arc >> 7n; v > 0n; v >>= 7n) base128.unshift(Number(v & 0x7fn) | 0x80);
    out.push(...base128);
  }
  return tlv(TAG.oid, Buffer.from(out));
}

export function derSequence(items: readonly Uint8Array[]): Buffer {
  return tlv(TAG.sequence, Buffer.concat(items));
}

/** A SET OF: DER orders the elements by their encodings. */
export function derSet(items: readonly Uint8Array[]): Buffer {
  return tlv(TAG.set, Buffer.concat([...items].sort((a, b) => Buffer.compare(a, b))));
}

export function derUtf8String(s: string): Buffer {
  return tlv(TAG.utf8String, Buffer.from(s, 'utf8'));
}

export function derPrintableString(s: string): Buffer {
  if (!PRINTABLE.test(s))
    throw new KvError('KV_ERR_INVALID', 'DER PrintableString: character outside its set');
  return tlv(TAG.printableString, Buffer.from(s, 'latin1'));
}

/** A directory string as Go writes it: PrintableString when every character allows it, else UTF8String. */
export function derDirectoryString(s: string): Buffer {
  return PRINTABLE.test(s) ? derPrintableString(s) : derUtf8String(s);
}

export function derIa5String(s: string): Buffer {
  if (Buffer.byteLength(s, 'utf8') !== s.length)
    throw new KvError('KV_ERR_INVALID', 'DER IA5String: non-ASCII character');
  return tlv(TAG.ia5String, Buffer.from(s, 'latin1'));
}

/** RFC 5280 §4.1.2.5: UTCTime for the years 1950–2049, GeneralizedTime otherwise; whole seconds, UTC. */
export function derTime(date: Date): Buffer {
  const year = date.getUTCFullYear();
  if (!Number.isFinite(year) || year < 0 || year > 9999)
    throw new KvError('KV_ERR_INVALID', 'DER time: out of range');
  const rest = [
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ]
    .map((n) => String(n).padStart(2, '0'))
    .join('');
  if (year >= 1950 && year < 2050) {
    return tlv(TAG.utcTime, Buffer.from(`${String(year % 100).padStart(2, '0')}${rest}Z`, 'latin1'));
  }
  return tlv(TAG.generalizedTime, Buffer.from(`${String(year).padStart(4, '0')}${rest}Z`, 'latin1'));
}

/** [n] EXPLICIT: the encoding wrapped in a constructed context-specific TLV. */
export function derExplicit(tagNumber: number, encoding: Uint8Array): Buffer {
  return tlv(CONTEXT | CONSTRUCTED | lowTag(tagNumber), encoding);
}

/** [n] IMPLICIT: the encoding with its identifier replaced (primitive or constructed as it was). */
export function derImplicit(tagNumber: number, encoding: Uint8Array): Buffer {
  const out = Buffer.from(encoding);
  out[0] = CONTEXT | ((out[0] ?? 0) & CONSTRUCTED) | lowTag(tagNumber);
  return out;
}

function lowTag(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 30)
    throw new KvError('KV_ERR_INVALID', 'DER tag: only numbers 0–30');
  return n;
}
