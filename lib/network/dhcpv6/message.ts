/**
 * DHCPv6 client/server messages on the wire (RFC 8415 §8): a message type, a 24-bit transaction id and the
 * options (options.ts). Relay-forward and Relay-reply (§9) have another layout and are refused: only relay
 * agents send them, and none stands between a guest and its launcher. This is the packet handling
 * insomniacslk/dhcp does for kubevirt pkg/network/dhcp/serverv6 (tag v1.6.2).
 */
import { Dhcpv6DecodeError, Dhcpv6ValueError } from './errors.ts';
import { decodeOptions, encodeOptions, type Dhcpv6Option } from './options.ts';

export const MESSAGE_TYPE = {
  solicit: 1,
  advertise: 2,
  request: 3,
  confirm: 4,
  renew: 5,
  rebind: 6,
  reply: 7,
  release: 8,
  decline: 9,
  reconfigure: 10,
  informationRequest: 11,
  relayForward: 12,
  relayReply: 13,
} as const;

export const DHCPV6_SERVER_PORT = 547;

export interface Dhcpv6Message {
  /** Any type a client may send is read, known or not; the reply decides what to answer. */
  readonly type: number;
  readonly transactionId: number;
  /** In the order they came. */
  readonly options: readonly Dhcpv6Option[];
}

const HEADER = 4;
const MAX_TRANSACTION_ID = 0xffffff;

/** The data of the first option `code`, or undefined when the message does not carry it. */
export function optionData(message: Dhcpv6Message, code: number): Buffer | undefined {
  return message.options.find((o) => o.code === code)?.data;
}

/** Reads one message; a packet that is not one throws Dhcpv6DecodeError and never reads out of bounds. */
export function decodeMessage(packet: Uint8Array): Dhcpv6Message {
  const bytes = Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  if (bytes.length < HEADER)
    throw new Dhcpv6DecodeError('short', `${bytes.length} bytes, at least ${HEADER}`);
  const type = bytes.readUInt8(0);
  if (type === MESSAGE_TYPE.relayForward || type === MESSAGE_TYPE.relayReply) {
    throw new Dhcpv6DecodeError('relay', `message type ${type}`);
  }
  return {
    type,
    transactionId: bytes.readUIntBE(1, 3),
    options: decodeOptions(bytes.subarray(HEADER), 'message'),
  };
}

/** The message's bytes; a type or transaction id that does not fit its field throws Dhcpv6ValueError. */
export function encodeMessage(message: Dhcpv6Message): Buffer {
  const { type, transactionId } = message;
  if (!Number.isInteger(type) || type < 0 || type > 0xff) {
    throw new Dhcpv6ValueError('type', `${type} is not a message type`);
  }
  if (!Number.isInteger(transactionId) || transactionId < 0 || transactionId > MAX_TRANSACTION_ID) {
    throw new Dhcpv6ValueError('transactionId', `${transactionId} is not 24 bits`);
  }
  const header = Buffer.alloc(HEADER);
  header.writeUInt8(type, 0);
  header.writeUIntBE(transactionId, 1, 3);
  return Buffer.concat([header, encodeOptions(message.options)]);
}
