/**
 * Fixtures for the DHCPv6 server's tests: the masquerade configuration KubeVirt gives a guest and the messages
 * a guest's client sends, each changed by what a case gives.
 */
import type { Dhcpv6Config } from '../config.ts';
import type { Dhcpv6Message } from '../message.ts';
import { linkLayerDuid, OPTION, type Dhcpv6Option } from '../options.ts';

/** The masquerade bridge's MAC, whose DUID-LL identifies the server. */
const SERVER_MAC = '02:00:00:00:00:00';

/** DUID-LLT of the guest's 02:4b:56:00:00:02 (type 1, Ethernet, a time), as dhclient makes one. */
export const CLIENT_DUID = Buffer.from('000100012e1f3c40024b56000002', 'hex');

export function newDhcpv6Config(change: Partial<Dhcpv6Config> = {}): Dhcpv6Config {
  return {
    address: 'fd10:0:2::2',
    preferredLifetime: 86_313_600,
    validLifetime: 86_313_600,
    dns: ['fd00:10:96::a'],
    searchDomains: ['default.svc.cluster.local', 'cluster.local'],
    serverDuid: linkLayerDuid(SERVER_MAC),
    ...change,
  };
}

export const clientIdOption = (duid: Buffer = CLIENT_DUID): Dhcpv6Option => ({
  code: OPTION.clientId,
  data: duid,
});

/** An IA_NA as a client asks for one: its IAID, T1 and T2 of 0, no address. */
export function iaNaRequest(iaid: number): Dhcpv6Option {
  const data = Buffer.alloc(12);
  data.writeUInt32BE(iaid, 0);
  return { code: OPTION.iaNa, data };
}

export const RAPID_COMMIT: Dhcpv6Option = { code: OPTION.rapidCommit, data: Buffer.alloc(0) };

/** A message of `type` from the guest: its Client Identifier and an IA_NA, unless `options` says otherwise. */
export function newMessage(
  type: number,
  options: readonly Dhcpv6Option[] = [clientIdOption(), iaNaRequest(0x4b560002)],
  transactionId = 0x12abcd,
): Dhcpv6Message {
  return { type, transactionId, options };
}
