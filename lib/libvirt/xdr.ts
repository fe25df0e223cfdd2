/**
 * XDR (RFC 4506) as libvirt's RPC uses it: big-endian, every item padded to a multiple of 4 bytes.
 * Codecs are small values composed into schemas (`struct({ name: string(), id: int })`); a schema both
 * encodes and decodes, so the two directions cannot drift apart. Pure: no IO.
 * 64-bit integers (hyper) are bigint so no value is rounded.
 */
import { KvError } from '../kernel/errors/errors.ts';

export class XdrWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initial = 256) {
    this.buf = Buffer.alloc(initial);
  }

  /** Makes room for `bytes` bytes and returns their offset (call it before reading this.buf: it may move). */
  private reserve(bytes: number): number {
    if (this.len + bytes > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.buf.length * 2, this.len + bytes));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    const at = this.len;
    this.len += bytes;
    return at;
  }

  int32(v: number): void {
    checkInt(v, -0x8000_0000, 0x7fff_ffff, 'int');
    const at = this.reserve(4);
    this.buf.writeInt32BE(v, at);
  }
  uint32(v: number): void {
    checkInt(v, 0, 0xffff_ffff, 'unsigned int');
    const at = this.reserve(4);
    this.buf.writeUInt32BE(v, at);
  }
  int64(v: bigint): void {
    if (BigInt.asIntN(64, v) !== v) badRange(v, 'hyper');
    const at = this.reserve(8);
    this.buf.writeBigInt64BE(v, at);
  }
  uint64(v: bigint): void {
    if (BigInt.asUintN(64, v) !== v) badRange(v, 'unsigned hyper');
    const at = this.reserve(8);
    this.buf.writeBigUInt64BE(v, at);
  }
  float64(v: number): void {
    const at = this.reserve(8);
    this.buf.writeDoubleBE(v, at);
  }
  /** Bytes followed by zero padding up to a multiple of 4 (the length is not written). */
  bytes(b: Uint8Array): void {
    const at = this.reserve(padded(b.length));
    this.buf.set(b, at);
    this.buf.fill(0, at + b.length, at + padded(b.length));
  }
  /** The bytes written so far (a copy). */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

class XdrReader {
  private at = 0;
  private readonly buf: Buffer;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private take(n: number): number {
    if (this.at + n > this.buf.length) {
      throw new KvError('KV_ERR_DECODE', `xdr: need ${n} bytes at offset ${this.at}, have ${this.remaining}`);
    }
    const at = this.at;
    this.at += n;
    return at;
  }

  get remaining(): number {
    return this.buf.length - this.at;
  }
  int32(): number {
    return this.buf.readInt32BE(this.take(4));
  }
  uint32(): number {
    return this.buf.readUInt32BE(this.take(4));
  }
  int64(): bigint {
    return this.buf.readBigInt64BE(this.take(8));
  }
  uint64(): bigint {
    return this.buf.readBigUInt64BE(this.take(8));
  }
  float64(): number {
    return this.buf.readDoubleBE(this.take(8));
  }
  /** n bytes, then skips the padding (a copy, so the caller may keep it). */
  bytes(n: number): Buffer {
    const at = this.take(padded(n));
    return Buffer.from(this.buf.subarray(at, at + n));
  }
}

export interface Codec<T> {
  encode(w: XdrWriter, v: T): void;
  decode(r: XdrReader): T;
}
/** The value type a codec carries. */
export type Infer<C> = C extends Codec<infer T> ? T : never;

const padded = (n: number): number => (n + 3) & ~3;

function badRange(v: number | bigint, type: string): never {
  throw new KvError('KV_ERR_INTERNAL', `xdr: ${String(v)} is not a valid ${type}`);
}
function checkInt(v: number, min: number, max: number, type: string): void {
  if (!Number.isInteger(v) || v < min || v > max) badRange(v, type);
}
function checkLength(n: number, max: number, what: string): number {
  if (n > max) throw new KvError('KV_ERR_DECODE', `xdr: ${what} length ${n} exceeds its limit ${max}`);
  return n;
}

/** A codec from its two directions. */
function codec<T>(encode: (w: XdrWriter, v: T) => void, decode: (r: XdrReader) => T): Codec<T> {
  return { encode, decode };
}

export const int = codec<number>(
  (w, v) => {
    w.int32(v);
  },
  (r) => r.int32(),
);
export const uint = codec<number>(
  (w, v) => {
    w.uint32(v);
  },
  (r) => r.uint32(),
);
export const hyper = codec<bigint>(
  (w, v) => {
    w.int64(v);
  },
  (r) => r.int64(),
);
export const uhyper = codec<bigint>(
  (w, v) => {
    w.uint64(v);
  },
  (r) => r.uint64(),
);
export const double = codec<number>(
  (w, v) => {
    w.float64(v);
  },
  (r) => r.float64(),
);
export const empty = codec<undefined>(
  () => undefined,
  () => undefined,
);

export const bool = codec<boolean>(
  (w, v) => {
    w.int32(v ? 1 : 0);
  },
  (r) => {
    const v = r.int32();
    if (v !== 0 && v !== 1) throw new KvError('KV_ERR_DECODE', `xdr: bool must be 0 or 1, got ${v}`);
    return v === 1;
  },
);

/** Fixed-length opaque data: exactly n bytes on the wire, plus padding. */
export function fixedOpaque(n: number): Codec<Uint8Array> {
  return codec(
    (w, v) => {
      if (v.length !== n) throw new KvError('KV_ERR_INTERNAL', `xdr: opaque[${n}] given ${v.length} bytes`);
      w.bytes(v);
    },
    (r) => r.bytes(n),
  );
}

/** Variable-length opaque data: a length word, then the bytes. */
export function opaque(max = 0xffff_ffff): Codec<Uint8Array> {
  return codec(
    (w, v) => {
      w.uint32(v.length);
      w.bytes(v);
    },
    (r) => r.bytes(checkLength(r.uint32(), max, 'opaque')),
  );
}

/** A UTF-8 string (invalid bytes decode to U+FFFD). */
export function string(max = 0xffff_ffff): Codec<string> {
  const raw = opaque(max);
  const decoder = new TextDecoder('utf-8');
  return codec(
    (w, v) => {
      raw.encode(w, Buffer.from(v, 'utf8'));
    },
    (r) => decoder.decode(raw.decode(r)),
  );
}

/** An optional value (`type *name`): a bool word, then the value when present. */
export function optional<T>(c: Codec<T>): Codec<T | null> {
  return codec(
    (w, v) => {
      w.int32(v === null ? 0 : 1);
      if (v !== null) c.encode(w, v);
    },
    (r) => (bool.decode(r) ? c.decode(r) : null),
  );
}

/** A variable-length array (`type name<max>`). */
export function array<T>(c: Codec<T>, max = 0xffff_ffff): Codec<T[]> {
  return codec(
    (w, v) => {
      w.uint32(v.length);
      for (const item of v) c.encode(w, item);
    },
    (r) => {
      const n = checkLength(r.uint32(), max, 'array');
      const out: T[] = [];
      for (let i = 0; i < n; i++) out.push(c.decode(r));
      return out;
    },
  );
}

/** A fixed-length array (`type name[n]`): no length word. */
export function fixedArray<T>(c: Codec<T>, n: number): Codec<T[]> {
  return codec(
    (w, v) => {
      if (v.length !== n) throw new KvError('KV_ERR_INTERNAL', `xdr: array[${n}] given ${v.length} items`);
      for (const item of v) c.encode(w, item);
    },
    (r) => Array.from({ length: n }, () => c.decode(r)),
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any codec may be a field
type Fields = Record<string, Codec<any>>;
export type StructOf<S extends Fields> = { [K in keyof S]: Infer<S[K]> };

/** A struct: its fields in the schema's key order. */
export function struct<S extends Fields>(schema: S): Codec<StructOf<S>> {
  const fields = Object.entries(schema);
  return codec(
    (w, v) => {
      for (const [name, c] of fields) c.encode(w, v[name]);
    },
    (r) => {
      const out: Record<string, unknown> = {};
      for (const [name, c] of fields) out[name] = c.decode(r);
      return out as StructOf<S>;
    },
  );
}

/** A discriminated union on an int tag; a tag with no arm is a decode error. */
export function union<T>(arms: Readonly<Record<number, Codec<T>>>): Codec<{ tag: number; value: T }> {
  const arm = (tag: number): Codec<T> => {
    const c = arms[tag];
    if (c === undefined) throw new KvError('KV_ERR_DECODE', `xdr: union has no arm for tag ${tag}`);
    return c;
  };
  return codec(
    (w, v) => {
      w.int32(v.tag);
      arm(v.tag).encode(w, v.value);
    },
    (r) => {
      const tag = r.int32();
      return { tag, value: arm(tag).decode(r) };
    },
  );
}

export function encode<T>(c: Codec<T>, v: T): Buffer {
  const w = new XdrWriter();
  c.encode(w, v);
  return w.finish();
}

/** Decodes bytes that must hold exactly one value: trailing bytes are an error. */
export function decode<T>(c: Codec<T>, bytes: Uint8Array): T {
  const r = new XdrReader(bytes);
  const v = c.decode(r);
  if (r.remaining !== 0) throw new KvError('KV_ERR_DECODE', `xdr: ${r.remaining} trailing bytes`);
  return v;
}
