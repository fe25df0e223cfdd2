/**
 * What the server answers one request (kubevirt pkg/network/dhcp/server DHCPHandler.ServeDHCP and krolaw/dhcp4
 * Serve, tag v1.6.2), and where the answer goes. Only the configured client is answered: DISCOVER gets an
 * OFFER of its address; REQUEST gets an ACK when it asks for that address (option 50, or ciaddr when renewing)
 * and a NAK otherwise, and nothing when it names another server; INFORM gets an ACK with the options but no
 * address or lease (RFC 2131 §4.3.5); DECLINE, RELEASE and anything else get nothing.
 *
 * Where: a reply to a client that set the broadcast bit or has no address yet goes to the configuration's
 * broadcastAddress, as does every NAK (RFC 2131 §4.1); any other goes to the client's ciaddr when that is the
 * address this server gives it, and to broadcastAddress too when it is not. RFC 2131 names
 * 255.255.255.255, but Node cannot tie a UDP socket to a device, so a limited broadcast would leave by
 * whichever interface the routing table picks. The directed broadcast of the guest's subnet is routed out
 * of the guest's link and sent there as an Ethernet broadcast, the frame a client without an address waits
 * for; only its IP destination differs from RFC 2131's.
 */
import { configOptions } from './config-options.ts';
import type { DhcpConfig } from './config.ts';
import { ipv4Bytes, ipv4Text, UNSPECIFIED } from './ipv4.ts';
import { BOOTREPLY, BOOTREQUEST, macBytes, macText, optionData } from './message.ts';
import type { DhcpMessage, DhcpOption } from './message.ts';
import {
  addressesOption,
  leaseTimeOption,
  MESSAGE_TYPE,
  messageTypeOption,
  OPTION,
  textOption,
  type MessageType,
} from './options.ts';

export interface DhcpReply {
  readonly message: DhcpMessage;
  /** The IPv4 address to send it to, at the client port. */
  readonly destination: string;
}

const NAK_MESSAGE = 'requested address is not the one this server offers';

/** The request's message type; undefined when option 53 is missing or is not one byte. */
export function messageTypeOf(message: DhcpMessage): number | undefined {
  const data = optionData(message, OPTION.messageType);
  return data?.length === 1 ? data[0] : undefined;
}

const canonical = (address: string, field: string): string => ipv4Text(ipv4Bytes(address, field)) ?? '';

function answer(request: DhcpMessage, type: MessageType, fields: Partial<DhcpMessage>): DhcpMessage {
  return {
    op: BOOTREPLY,
    hops: 0,
    xid: request.xid,
    secs: 0,
    broadcast: request.broadcast,
    ciaddr: UNSPECIFIED,
    yiaddr: UNSPECIFIED,
    siaddr: UNSPECIFIED,
    giaddr: request.giaddr,
    chaddr: request.chaddr,
    sname: '',
    file: '',
    ...fields,
    options: [messageTypeOption(type), ...(fields.options ?? [])],
  };
}

/**
 * Unicast only to the address this server gives the guest: a request naming any other ciaddr (which anyone
 * reaching port 67 of the Pod could send, with the guest's MAC) is answered on the guest's link, never routed
 * elsewhere.
 */
function destination(request: DhcpMessage, config: DhcpConfig): string {
  const own = request.ciaddr === canonical(config.clientIp, 'clientIp');
  return request.broadcast || !own || config.broadcastOnly === true
    ? config.broadcastAddress
    : request.ciaddr;
}

function serverId(config: DhcpConfig): DhcpOption {
  return addressesOption(OPTION.serverIdentifier, [config.serverIp]);
}

/** An OFFER or ACK of the client's address, with the lease and every configured option. */
function lease(request: DhcpMessage, config: DhcpConfig, type: MessageType): DhcpReply {
  const options = [serverId(config), leaseTimeOption(config.leaseSeconds), ...configOptions(config)];
  const ciaddr = type === MESSAGE_TYPE.ack ? request.ciaddr : UNSPECIFIED;
  const message = answer(request, type, { ciaddr, yiaddr: canonical(config.clientIp, 'clientIp'), options });
  return { message, destination: destination(request, config) };
}

function nak(request: DhcpMessage, config: DhcpConfig): DhcpReply {
  const options = [serverId(config), textOption(OPTION.message, NAK_MESSAGE)];
  return { message: answer(request, MESSAGE_TYPE.nak, { options }), destination: config.broadcastAddress };
}

function answerRequest(request: DhcpMessage, config: DhcpConfig): DhcpReply | undefined {
  const server = optionData(request, OPTION.serverIdentifier);
  if (server !== undefined && ipv4Text(server) !== canonical(config.serverIp, 'serverIp')) return undefined;
  const requested = optionData(request, OPTION.requestedAddress);
  const asked = requested === undefined ? request.ciaddr : requested.length === 4 ? ipv4Text(requested) : '';
  return asked === canonical(config.clientIp, 'clientIp')
    ? lease(request, config, MESSAGE_TYPE.ack)
    : nak(request, config);
}

function inform(request: DhcpMessage, config: DhcpConfig): DhcpReply {
  const options = [serverId(config), ...configOptions(config)];
  const message = answer(request, MESSAGE_TYPE.ack, { ciaddr: request.ciaddr, options });
  return { message, destination: destination(request, config) };
}

const sameMac = (a: string, b: string): boolean =>
  macText(macBytes(a, 'chaddr')) === macText(macBytes(b, 'clientMac'));

/**
 * The reply to one request, or undefined when there is none to send. A configuration that checkConfig
 * (config-options.ts) refuses throws its DhcpValueError here too.
 */
export function reply(request: DhcpMessage, config: DhcpConfig): DhcpReply | undefined {
  if (request.op !== BOOTREQUEST || !sameMac(request.chaddr, config.clientMac)) return undefined;
  const type = messageTypeOf(request);
  if (type === MESSAGE_TYPE.discover) return lease(request, config, MESSAGE_TYPE.offer);
  if (type === MESSAGE_TYPE.request) return answerRequest(request, config);
  if (type === MESSAGE_TYPE.inform) return inform(request, config);
  return undefined;
}
