/**
 * libvirt's RPC wire format (src/rpc/virnetprotocol.x): every packet is a 4-byte total length (itself
 * included), a 24-byte header (program, version, procedure, type, serial, status), then an XDR payload.
 * Pure: packet encoding, a byte-fed packet reader, and libvirt's error record as a typed error.
 */
import { KvError } from '../kernel/errors/errors.ts';
import { errorCodeName, errorDomainName, VIR_ERR } from './error-codes.ts';
import * as x from './xdr.ts';

export const REMOTE_PROGRAM = 0x20008086;
export const QEMU_PROGRAM = 0x20008087;
export const KEEPALIVE_PROGRAM = 0x6b656570;
export const PROTOCOL_VERSION = 1;

export const KEEPALIVE_PROC = { PING: 1, PONG: 2 } as const;

/** virNetMessageType. */
export const MESSAGE_TYPE = {
  CALL: 0,
  REPLY: 1,
  MESSAGE: 2,
  STREAM: 3,
  CALL_WITH_FDS: 4,
  REPLY_WITH_FDS: 5,
  STREAM_HOLE: 6,
} as const;

/** virNetMessageStatus. */
export const MESSAGE_STATUS = { OK: 0, ERROR: 1, CONTINUE: 2 } as const;

const LENGTH_SIZE = 4;
const HEADER_SIZE = 24;
/** Largest packet accepted from the peer (libvirt's own limit is 32 MiB in current releases). */
const MAX_PACKET = 64 * 1024 * 1024;

export interface Header {
  program: number;
  version: number;
  procedure: number;
  type: number;
  serial: number;
  status: number;
}

export interface Packet {
  header: Header;
  payload: Buffer;
}

/** Frames one packet: length word, header, payload. */
export function encodePacket(header: Header, payload: Uint8Array = new Uint8Array()): Buffer {
  const out = Buffer.alloc(LENGTH_SIZE + HEADER_SIZE + payload.length);
  out.writeUInt32BE(out.length, 0);
  out.writeUInt32BE(header.program, 4);
  out.writeUInt32BE(header.version, 8);
  out.writeInt32BE(header.procedure, 12);
  out.writeInt32BE(header.type, 16);
  out.writeUInt32BE(header.serial, 20);
  out.writeInt32BE(header.status, 24);
  out.set(payload, LENGTH_SIZE + HEADER_SIZE);
  return out;
}

function decodeHeader(buffer: Buffer): Header {
  return {
    program: buffer.readUInt32BE(4),
    version: buffer.readUInt32BE(8),
    procedure: buffer.readInt32BE(12),
    type: buffer.readInt32BE(16),
    serial: buffer.readUInt32BE(20),
    status: buffer.readInt32BE(24),
  };
}

/**
 * Splits a byte stream into packets, fed chunk by chunk. A length below the header size or above
 * MAX_PACKET means the stream is corrupt: push throws and the reader must not be used again.
 */
export class PacketReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Uint8Array): Packet[] {
    if (chunk.length > 0) {
      this.chunks.push(Buffer.from(chunk));
      this.buffered += chunk.length;
    }
    const out: Packet[] = [];
    for (let p = this.next(); p !== undefined; p = this.next()) out.push(p);
    return out;
  }

  get bufferedBytes(): number {
    return this.buffered;
  }

  private next(): Packet | undefined {
    if (this.buffered < LENGTH_SIZE) return undefined;
    const head = this.peek(LENGTH_SIZE);
    const len = head.readUInt32BE(0);
    if (len < LENGTH_SIZE + HEADER_SIZE || len > MAX_PACKET) {
      throw new KvError('KV_ERR_DECODE', `libvirt rpc: bad packet length ${len}`);
    }
    if (this.buffered < len) return undefined;
    const bytes = this.take(len);
    return { header: decodeHeader(bytes), payload: bytes.subarray(LENGTH_SIZE + HEADER_SIZE) };
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= n) return first;
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    return all;
  }

  private take(n: number): Buffer {
    const all = this.peek(n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered -= n;
    return all.subarray(0, n);
  }
}

const optString = x.optional(x.string());
export const nonnullDomainCodec = x.struct({ name: x.string(), uuid: x.fixedOpaque(16), id: x.int });
const networkCodec = x.struct({ name: x.string(), uuid: x.fixedOpaque(16) });

/** remote_error / virNetMessageError. */
export const remoteErrorCodec = x.struct({
  code: x.int,
  domain: x.int,
  message: optString,
  level: x.int,
  dom: x.optional(nonnullDomainCodec),
  str1: optString,
  str2: optString,
  str3: optString,
  int1: x.int,
  int2: x.int,
  net: x.optional(networkCodec),
});
export type RemoteError = x.Infer<typeof remoteErrorCodec>;

/** An error reported by libvirt, with its error number (VIR_ERR_*), error domain (VIR_FROM_*) and message. */
export class LibvirtError extends KvError {
  readonly libvirtCode: number;
  readonly libvirtDomain: number;
  readonly level: number;

  constructor(e: Pick<RemoteError, 'code' | 'domain' | 'message' | 'level'>, options?: { cause?: unknown }) {
    super('KV_ERR_LIBVIRT', e.message ?? errorCodeName(e.code), options);
    this.libvirtCode = e.code;
    this.libvirtDomain = e.domain;
    this.level = e.level;
  }

  /** 'VIR_ERR_NO_DOMAIN' etc. */
  get codeName(): string {
    return errorCodeName(this.libvirtCode);
  }
  /** 'VIR_FROM_QEMU' etc. */
  get domainName(): string {
    return errorDomainName(this.libvirtDomain);
  }
}

/** Decodes the payload of an ERROR reply into a LibvirtError. */
export function decodeRemoteError(payload: Uint8Array): LibvirtError {
  return new LibvirtError(x.decode(remoteErrorCodec, payload));
}

/** True for a LibvirtError, and when code is given, one with that libvirt error number. */
export function isLibvirtError(err: unknown, code?: number): err is LibvirtError {
  return err instanceof LibvirtError && (code === undefined || err.libvirtCode === code);
}

export const isNoDomain = (err: unknown): boolean => isLibvirtError(err, VIR_ERR.NO_DOMAIN);
