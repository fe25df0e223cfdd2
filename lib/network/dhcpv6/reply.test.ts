import { describe, expect, it } from '@jest/globals';
import type { Dhcpv6Config } from './config.ts';
import { Dhcpv6ValueError } from './errors.ts';
import { MESSAGE_TYPE, optionData, type Dhcpv6Message } from './message.ts';
import { decodeOptions, iaidOf, ipv6Text, OPTION } from './options.ts';
import { checkConfig, reply } from './reply.ts';
import {
  CLIENT_DUID,
  clientIdOption,
  iaNaRequest,
  newDhcpv6Config,
  newMessage,
  RAPID_COMMIT,
} from './testing/messages.ts';

const { solicit, advertise, request, confirm, renew, rebind, release, decline, informationRequest } =
  MESSAGE_TYPE;
const GUEST_IAID = 0x4b560002;
/** The options every answer carries after the Client Identifier (and Rapid Commit). */
const LEASE: readonly number[] = [OPTION.iaNa, OPTION.serverId, OPTION.dnsServers, OPTION.domainList];

interface Expected {
  readonly type: number;
  readonly codes: readonly number[];
  readonly iaid: number;
}

const answer = (type: number, iaid = GUEST_IAID, codes = [OPTION.clientId, ...LEASE]): Expected => ({
  type,
  codes,
  iaid,
});
const REPLY = answer(MESSAGE_TYPE.reply);
const serverId = { code: OPTION.serverId, data: Buffer.from('00030001aabbccddeeff', 'hex') };

describe('the answer to a message', () => {
  it.each<[string, Dhcpv6Message, Expected | undefined]>([
    ['a Solicit', newMessage(solicit), answer(advertise)],
    [
      'a Solicit with Rapid Commit',
      newMessage(solicit, [clientIdOption(), RAPID_COMMIT, iaNaRequest(GUEST_IAID)]),
      answer(MESSAGE_TYPE.reply, GUEST_IAID, [OPTION.clientId, OPTION.rapidCommit, ...LEASE]),
    ],
    ['a Solicit without IA_NA (IAID 0)', newMessage(solicit, [clientIdOption()]), answer(advertise, 0)],
    [
      'a Solicit with two IA_NA (the first one answered)',
      newMessage(solicit, [clientIdOption(), iaNaRequest(7), iaNaRequest(8)]),
      answer(advertise, 7),
    ],
    ['a Solicit without Client Identifier', newMessage(solicit, [iaNaRequest(GUEST_IAID)]), undefined],
    [
      'a Solicit without Client Identifier but with Rapid Commit',
      newMessage(solicit, [RAPID_COMMIT, iaNaRequest(GUEST_IAID)]),
      undefined,
    ],
    ['a Request', newMessage(request, [clientIdOption(), serverId, iaNaRequest(GUEST_IAID)]), REPLY],
    [
      'a Request naming another server (not compared)',
      newMessage(request, [clientIdOption(), serverId]),
      answer(MESSAGE_TYPE.reply, 0),
    ],
    [
      'a Request with Rapid Commit (no Rapid Commit back)',
      newMessage(request, [clientIdOption(), RAPID_COMMIT, iaNaRequest(GUEST_IAID)]),
      REPLY,
    ],
    ['a Renew', newMessage(renew), REPLY],
    ['a Rebind', newMessage(rebind), REPLY],
    ['a Confirm', newMessage(confirm), REPLY],
    ['a Release', newMessage(release), REPLY],
    [
      'an Information-request',
      newMessage(informationRequest, [clientIdOption()]),
      answer(MESSAGE_TYPE.reply, 0),
    ],
    ['an Information-request without Client Identifier', newMessage(informationRequest, []), undefined],
    ['a Renew without Client Identifier', newMessage(renew, [iaNaRequest(GUEST_IAID)]), undefined],
    ['a Decline', newMessage(decline), undefined],
    ['an Advertise', newMessage(advertise), undefined],
    ['a Reply', newMessage(MESSAGE_TYPE.reply), undefined],
    ['a Reconfigure', newMessage(MESSAGE_TYPE.reconfigure), undefined],
    ['a Relay-forward', newMessage(MESSAGE_TYPE.relayForward), undefined],
    ['message type 0', newMessage(0), undefined],
    ['message type 36', newMessage(36), undefined],
  ])('%s', (_what, message, expected) => {
    const answered = reply(message, newDhcpv6Config());
    if (expected === undefined) {
      expect(answered).toBeUndefined();
      return;
    }
    const iaNa = answered && optionData(answered, OPTION.iaNa);
    expect({
      type: answered?.type,
      codes: answered?.options.map((o) => o.code),
      iaid: iaNa && iaidOf(iaNa),
    }).toEqual(expected);
    expect(answered?.transactionId).toBe(message.transactionId);
    expect(answered && optionData(answered, OPTION.clientId)).toEqual(CLIENT_DUID);
    expect(answered && optionData(answered, OPTION.serverId)).toEqual(
      Buffer.from('00030001020000000000', 'hex'),
    );
  });

  it('leases the configured address for its lifetimes, leaving T1 and T2 to the client', () => {
    const config = newDhcpv6Config({ address: 'fd20::82', preferredLifetime: 3600, validLifetime: 7200 });
    const iaNa =
      optionData(reply(newMessage(solicit), config) ?? newMessage(0), OPTION.iaNa) ?? Buffer.alloc(0);
    expect(iaNa.subarray(4, 12)).toEqual(Buffer.alloc(8));
    const [address, ...rest] = decodeOptions(iaNa.subarray(12), 'IA_NA');
    expect(rest).toEqual([]);
    expect(address?.code).toBe(OPTION.iaAddress);
    expect(address && ipv6Text(address.data)).toBe('fd20::82');
    expect(address?.data.readUInt32BE(16)).toBe(3600);
    expect(address?.data.readUInt32BE(20)).toBe(7200);
    expect(address?.data.length).toBe(24);
  });

  it('carries the DNS servers and search list as configured', () => {
    const config = newDhcpv6Config({ dns: ['fd00::1', 'fd00::2'], searchDomains: ['cluster.local'] });
    const answered = reply(newMessage(renew), config);
    expect(answered && optionData(answered, OPTION.dnsServers)?.length).toBe(32);
    expect(answered && optionData(answered, OPTION.domainList)).toEqual(
      Buffer.from('\x07cluster\x05local\x00', 'latin1'),
    );
  });

  it('sends neither DNS servers nor a search list when there are none, as KubeVirt v1.6.2', () => {
    const answered = reply(newMessage(solicit), newDhcpv6Config({ dns: [], searchDomains: [] }));
    expect(answered?.options.map((o) => o.code)).toEqual([OPTION.clientId, OPTION.iaNa, OPTION.serverId]);
  });

  it.each<[string, Partial<Dhcpv6Config>, string]>([
    ['an IPv4 address', { address: '10.0.2.2' }, 'address'],
    ['preferred over valid', { preferredLifetime: 10, validLifetime: 5 }, 'option 3'],
    ['an IPv4 DNS server', { dns: ['10.96.0.10'] }, 'option 23'],
    ['a bad search domain', { searchDomains: ['foo,com'] }, 'option 24'],
    ['a DUID of two bytes', { serverDuid: Buffer.from([0, 3]) }, 'option 2'],
  ])('refuses a configuration with %s', (_what, change, field) => {
    expect(() => {
      checkConfig(newDhcpv6Config(change));
    }).toThrow(expect.objectContaining({ field }));
    expect(() => reply(newMessage(solicit), newDhcpv6Config(change))).toThrow(Dhcpv6ValueError);
  });

  it('accepts the fixture configuration', () => {
    expect(() => {
      checkConfig(newDhcpv6Config());
    }).not.toThrow();
  });
});
