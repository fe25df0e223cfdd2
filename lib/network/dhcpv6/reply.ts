/**
 * What the DHCPv6 server answers one message (kubevirt pkg/network/dhcp/serverv6 DHCPv6Handler.buildResponse
 * with insomniacslk/dhcp NewAdvertiseFromSolicit and NewReplyFromMessage, tag v1.6.2). Every answer echoes the
 * transaction id and the Client Identifier, and carries IA_NA with the configured address, the Server
 * Identifier and, when configured, DNS servers and the search list:
 * - Solicit gets an Advertise, or a Reply carrying Rapid Commit when the Solicit has one (RFC 8415 §18.3.1);
 * - Request, Confirm, Renew, Rebind, Release and Information-request get a Reply with the same lease.
 * A message without a Client Identifier, a Decline and any type a server never receives get nothing.
 *
 * Like KubeVirt, and unlike the rest of RFC 8415 §18.3: the Server Identifier a client names is not compared
 * (a masquerade bridge always has the same MAC, so every launcher has the same DUID), the IA_NA takes the
 * IAID of the client's first IA_NA (0 when it has none) and answers only that one, IA_TA and IA_PD are not
 * answered, and the Option Request option is not read.
 */
import type { Dhcpv6Config } from './config.ts';
import { MESSAGE_TYPE, optionData, type Dhcpv6Message } from './message.ts';
import {
  dnsServersOption,
  domainListOption,
  duidOption,
  iaidOf,
  iaNaOption,
  OPTION,
  type Dhcpv6Option,
} from './options.ts';

/** The messages answered with a Reply whatever they carry (NewReplyFromMessage's list). */
const ANSWERED_BY_REPLY: ReadonlySet<number> = new Set([
  MESSAGE_TYPE.request,
  MESSAGE_TYPE.confirm,
  MESSAGE_TYPE.renew,
  MESSAGE_TYPE.rebind,
  MESSAGE_TYPE.release,
  MESSAGE_TYPE.informationRequest,
]);

const RAPID_COMMIT: Dhcpv6Option = { code: OPTION.rapidCommit, data: Buffer.alloc(0) };

/** IA_NA, Server Identifier, then the DNS servers and search list when there are any. */
function leaseOptions(config: Dhcpv6Config, iaid: number): Dhcpv6Option[] {
  return [
    iaNaOption({
      iaid,
      address: config.address,
      preferredLifetime: config.preferredLifetime,
      validLifetime: config.validLifetime,
    }),
    duidOption(OPTION.serverId, config.serverDuid),
    ...(config.dns.length > 0 ? [dnsServersOption(config.dns)] : []),
    ...(config.searchDomains.length > 0 ? [domainListOption(config.searchDomains)] : []),
  ];
}

/** Throws the Dhcpv6ValueError of a value no answer could carry, so the server refuses it before listening. */
export function checkConfig(config: Dhcpv6Config): void {
  leaseOptions(config, 0);
}

/** The answer's type, or undefined when the message gets none. */
function answerType(request: Dhcpv6Message, rapidCommit: boolean): number | undefined {
  if (request.type === MESSAGE_TYPE.solicit) return rapidCommit ? MESSAGE_TYPE.reply : MESSAGE_TYPE.advertise;
  return ANSWERED_BY_REPLY.has(request.type) ? MESSAGE_TYPE.reply : undefined;
}

/**
 * The answer to one message, sent back to where it came from, or undefined when there is none. A
 * configuration checkConfig refuses throws its Dhcpv6ValueError here too.
 */
export function reply(request: Dhcpv6Message, config: Dhcpv6Config): Dhcpv6Message | undefined {
  const clientId = optionData(request, OPTION.clientId);
  const rapidCommit = optionData(request, OPTION.rapidCommit) !== undefined;
  const type = answerType(request, rapidCommit);
  if (clientId === undefined || type === undefined) return undefined;
  const iaNa = optionData(request, OPTION.iaNa);
  const iaid = (iaNa === undefined ? undefined : iaidOf(iaNa)) ?? 0;
  const committed = request.type === MESSAGE_TYPE.solicit && rapidCommit;
  return {
    type,
    transactionId: request.transactionId,
    options: [
      { code: OPTION.clientId, data: clientId },
      ...(committed ? [RAPID_COMMIT] : []),
      ...leaseOptions(config, iaid),
    ],
  };
}
