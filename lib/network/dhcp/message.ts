/**
 * DHCPv4 messages on the wire (RFC 2131 §2, the BOOTP header of RFC 951): the fixed 236-byte header, the
 * magic cookie and the options as code/length/value. A value longer than 255 bytes is written as several
 * options of the same code and those are joined again when read (RFC 3396), so callers never see the split.
 * Only Ethernet clients are read; option overload (option 52) is left as an ordinary option. This is the
 * packet handling krolaw/dhcp4 does for kubevirt pkg/network/dhcp/server (tag v1.6.2).
 */
import { DhcpDecodeError, DhcpValueError } from './errors.ts';
import { ipv4Bytes, ipv4Text, UNSPECIFIED } from './ipv4.ts';

export const BOOTREQUEST = 1;
export const BOOTREPLY = 2;
export const DHCP_SERVER_PORT = 67;
export const DHCP_CLIENT_PORT = 68;

export interface DhcpOption {
  readonly code: number;
  readonly data: Buffer;
}

export interface DhcpMessage {
  readonly op: typeof BOOTREQUEST | typeof BOOTREPLY;
  readonly hops: number;
  readonly xid: number;
  readonly secs: number;
  /** The broadcast bit of `flags`, the only one RFC 2131 defines. */
  readonly broadcast: boolean;
  readonly ciaddr: string;
  readonly yiaddr: string;
  readonly siaddr: string;
  readonly giaddr: string;
  /** The client's Ethernet address, `aa:bb:cc:dd:ee:ff`. */
  readonly chaddr: string;
  readonly sname: string;
  readonly file: string;
  /** In the order they came, each code once (pad and end are not options). */
  readonly options: readonly DhcpOption[];
}

const HEADER = 236;
const COOKIE = Buffer.from([99, 130, 83, 99]);
const OPTIONS = HEADER + COOKIE.length;
/** RFC 1542 §2.1: a BOOTP message is never shorter than 300 bytes; some old clients drop shorter ones. */
const MIN_MESSAGE = 300;
const ETHERNET = 1;
const MAC_LENGTH = 6;
const PAD = 0;
const END = 255;
const MAX_OPTION_LENGTH = 255;
const BROADCAST_FLAG = 0x8000;
const SNAME = { offset: 44, length: 64 };
const FILE = { offset: 108, length: 128 };

/** The client hardware address from the given text (`:` or `-` between octets, any case). */
export function macBytes(text: string, field: string): Buffer {
  if (!/^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i.test(text)) {
    throw new DhcpValueError(field, `${JSON.stringify(text)} is not an Ethernet address`);
  }
  return Buffer.from(text.split(/[:-]/).map((octet) => Number.parseInt(octet, 16)));
}

/** `aa:bb:cc:dd:ee:ff`, lower case. */
export function macText(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(':');
}

/** The data of option `code`, or undefined when the message does not carry it. */
export function optionData(message: DhcpMessage, code: number): Buffer | undefined {
  return message.options.find((o) => o.code === code)?.data;
}

function nulTerminated(bytes: Buffer): string {
  const nul = bytes.indexOf(0);
  return bytes.toString('latin1', 0, nul < 0 ? bytes.length : nul);
}

function decodeOptions(bytes: Buffer): DhcpOption[] {
  const byCode = new Map<number, Buffer[]>();
  let at = OPTIONS;
  while (at < bytes.length) {
    const code = bytes[at] ?? END;
    if (code === END) break;
    if (code === PAD) {
      at += 1;
      continue;
    }
    const length = bytes[at + 1];
    if (length === undefined || at + 2 + length > bytes.length) {
      throw new DhcpDecodeError('option-overrun', `option ${code} at byte ${at} runs past the end`);
    }
    const parts = byCode.get(code) ?? [];
    parts.push(bytes.subarray(at + 2, at + 2 + length));
    byCode.set(code, parts);
    at += 2 + length;
  }
  return [...byCode].map(([code, parts]) => ({ code, data: Buffer.concat(parts) }));
}

/** Reads one message; a packet that is not one throws DhcpDecodeError and never reads out of bounds. */
export function decodeMessage(packet: Uint8Array): DhcpMessage {
  const bytes = Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  if (bytes.length < OPTIONS)
    throw new DhcpDecodeError('short', `${bytes.length} bytes, at least ${OPTIONS}`);
  if (!bytes.subarray(HEADER, OPTIONS).equals(COOKIE)) throw new DhcpDecodeError('cookie', 'no magic cookie');
  const op = bytes.readUInt8(0);
  if (op !== BOOTREQUEST && op !== BOOTREPLY) throw new DhcpDecodeError('op', `op ${op}`);
  if (bytes.readUInt8(1) !== ETHERNET || bytes.readUInt8(2) !== MAC_LENGTH) {
    throw new DhcpDecodeError('hardware', `htype ${bytes.readUInt8(1)}, hlen ${bytes.readUInt8(2)}`);
  }
  const address = (offset: number): string => ipv4Text(bytes, offset) ?? UNSPECIFIED;
  return {
    op,
    hops: bytes.readUInt8(3),
    xid: bytes.readUInt32BE(4),
    secs: bytes.readUInt16BE(8),
    broadcast: (bytes.readUInt16BE(10) & BROADCAST_FLAG) !== 0,
    ciaddr: address(12),
    yiaddr: address(16),
    siaddr: address(20),
    giaddr: address(24),
    chaddr: macText(bytes.subarray(28, 28 + MAC_LENGTH)),
    sname: nulTerminated(bytes.subarray(SNAME.offset, SNAME.offset + SNAME.length)),
    file: nulTerminated(bytes.subarray(FILE.offset, FILE.offset + FILE.length)),
    options: decodeOptions(bytes),
  };
}

function encodeOption(option: DhcpOption): Buffer[] {
  if (!Number.isInteger(option.code) || option.code <= PAD || option.code >= END) {
    throw new DhcpValueError(`option ${option.code}`, 'codes are 1–254');
  }
  const chunks: Buffer[] = [];
  for (let at = 0; at === 0 || at < option.data.length; at += MAX_OPTION_LENGTH) {
    const part = option.data.subarray(at, at + MAX_OPTION_LENGTH);
    chunks.push(Buffer.from([option.code, part.length]), part);
  }
  return chunks;
}

function writeText(header: Buffer, text: string, field: { offset: number; length: number }): void {
  const bytes = Buffer.from(text, 'latin1');
  if (bytes.length > field.length) {
    throw new DhcpValueError(field === SNAME ? 'sname' : 'file', `longer than ${field.length} bytes`);
  }
  bytes.copy(header, field.offset);
}

/** The message's bytes, padded to 300; a field that does not fit its place throws DhcpValueError. */
export function encodeMessage(message: DhcpMessage): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt8(message.op, 0);
  header.writeUInt8(ETHERNET, 1);
  header.writeUInt8(MAC_LENGTH, 2);
  header.writeUInt8(message.hops, 3);
  header.writeUInt32BE(message.xid, 4);
  header.writeUInt16BE(message.secs, 8);
  header.writeUInt16BE(message.broadcast ? BROADCAST_FLAG : 0, 10);
  ipv4Bytes(message.ciaddr, 'ciaddr').copy(header, 12);
  ipv4Bytes(message.yiaddr, 'yiaddr').copy(header, 16);
  ipv4Bytes(message.siaddr, 'siaddr').copy(header, 20);
  ipv4Bytes(message.giaddr, 'giaddr').copy(header, 24);
  macBytes(message.chaddr, 'chaddr').copy(header, 28);
  writeText(header, message.sname, SNAME);
  writeText(header, message.file, FILE);
  const body = [header, COOKIE, ...message.options.flatMap(encodeOption), Buffer.from([END])];
  const bytes = Buffer.concat(body);
  return bytes.length >= MIN_MESSAGE
    ? bytes
    : Buffer.concat([bytes, Buffer.alloc(MIN_MESSAGE - bytes.length)]);
}
