import { describe, expect, it } from '@jest/globals';
import type { DhcpConfig } from './config.ts';
import { DhcpValueError } from './errors.ts';
import { BOOTREPLY, optionData, type DhcpMessage } from './message.ts';
import { MESSAGE_TYPE, OPTION } from './options.ts';
import { messageTypeOf, reply } from './reply.ts';
import { addressOption, newDhcpConfig, newRequest } from './testing/messages.ts';

const requested = (address: string): ReturnType<typeof addressOption> =>
  addressOption(OPTION.requestedAddress, address);
const server = (address: string): ReturnType<typeof addressOption> =>
  addressOption(OPTION.serverIdentifier, address);

/** The configured options a lease carries, after type, server identifier and lease time. */
const CONFIG_CODES = [1, 3, 6, 12, 15, 26, 119];

interface Expected {
  readonly type: number;
  readonly destination: string;
  readonly yiaddr: string;
  readonly ciaddr: string;
  readonly codes: readonly number[];
}

const offer = (destination: string): Expected => ({
  type: MESSAGE_TYPE.offer,
  destination,
  yiaddr: '10.0.2.2',
  ciaddr: '0.0.0.0',
  codes: [53, 54, 51, ...CONFIG_CODES],
});
const ack = (destination: string, ciaddr = '0.0.0.0'): Expected => ({
  type: MESSAGE_TYPE.ack,
  destination,
  yiaddr: '10.0.2.2',
  ciaddr,
  codes: [53, 54, 51, ...CONFIG_CODES],
});
const NAK: Expected = {
  type: MESSAGE_TYPE.nak,
  destination: '10.0.2.255',
  yiaddr: '0.0.0.0',
  ciaddr: '0.0.0.0',
  codes: [53, 54, 56],
};

describe('the reply to a request', () => {
  it.each<[string, DhcpMessage, Expected | undefined]>([
    ['a DISCOVER', newRequest(MESSAGE_TYPE.discover), offer('10.0.2.255')],
    [
      'a DISCOVER asking for broadcast',
      newRequest(MESSAGE_TYPE.discover, [], { broadcast: true }),
      offer('10.0.2.255'),
    ],
    [
      'a DISCOVER asking for its address',
      newRequest(MESSAGE_TYPE.discover, [requested('10.0.2.9')]),
      offer('10.0.2.255'),
    ],
    [
      'a DISCOVER from another MAC',
      newRequest(MESSAGE_TYPE.discover, [], { chaddr: '02:00:00:0a:00:03' }),
      undefined,
    ],
    [
      'a REQUEST for the offered address (SELECTING)',
      newRequest(MESSAGE_TYPE.request, [requested('10.0.2.2'), server('10.0.2.1')]),
      ack('10.0.2.255'),
    ],
    [
      'a REQUEST for its address (INIT-REBOOT)',
      newRequest(MESSAGE_TYPE.request, [requested('10.0.2.2')]),
      ack('10.0.2.255'),
    ],
    [
      'a REQUEST renewing by unicast (RENEWING)',
      newRequest(MESSAGE_TYPE.request, [], { ciaddr: '10.0.2.2' }),
      ack('10.0.2.2', '10.0.2.2'),
    ],
    [
      'a REQUEST renewing by broadcast (REBINDING, broadcast bit)',
      newRequest(MESSAGE_TYPE.request, [], { ciaddr: '10.0.2.2', broadcast: true }),
      ack('10.0.2.255', '10.0.2.2'),
    ],
    ['a REQUEST for another address', newRequest(MESSAGE_TYPE.request, [requested('10.0.2.3')]), NAK],
    [
      'a REQUEST with a 3-byte requested address',
      newRequest(MESSAGE_TYPE.request, [{ code: OPTION.requestedAddress, data: Buffer.from([10, 0, 2]) }]),
      NAK,
    ],
    ['a REQUEST renewing another address', newRequest(MESSAGE_TYPE.request, [], { ciaddr: '10.0.2.3' }), NAK],
    ['a REQUEST asking for nothing', newRequest(MESSAGE_TYPE.request), NAK],
    [
      'a REQUEST that chose another server',
      newRequest(MESSAGE_TYPE.request, [requested('10.0.2.2'), server('10.0.2.254')]),
      undefined,
    ],
    [
      'a REQUEST from another MAC',
      newRequest(MESSAGE_TYPE.request, [requested('10.0.2.2')], { chaddr: 'aa:bb:cc:dd:ee:ff' }),
      undefined,
    ],
    [
      'an INFORM from the configured address',
      newRequest(MESSAGE_TYPE.inform, [], { ciaddr: '10.0.2.2' }),
      {
        type: MESSAGE_TYPE.ack,
        destination: '10.0.2.2',
        yiaddr: '0.0.0.0',
        ciaddr: '10.0.2.2',
        codes: [53, 54, ...CONFIG_CODES],
      },
    ],
    [
      'an INFORM from an address the guest was not given (answered on its link, not routed there)',
      newRequest(MESSAGE_TYPE.inform, [], { ciaddr: '192.0.2.7' }),
      {
        type: MESSAGE_TYPE.ack,
        destination: '10.0.2.255',
        yiaddr: '0.0.0.0',
        ciaddr: '192.0.2.7',
        codes: [53, 54, ...CONFIG_CODES],
      },
    ],
    [
      'an INFORM without an address',
      newRequest(MESSAGE_TYPE.inform),
      {
        type: MESSAGE_TYPE.ack,
        destination: '10.0.2.255',
        yiaddr: '0.0.0.0',
        ciaddr: '0.0.0.0',
        codes: [53, 54, ...CONFIG_CODES],
      },
    ],
    ['a RELEASE', newRequest(MESSAGE_TYPE.release, [server('10.0.2.1')], { ciaddr: '10.0.2.2' }), undefined],
    ['a DECLINE', newRequest(MESSAGE_TYPE.decline, [requested('10.0.2.2'), server('10.0.2.1')]), undefined],
    ['an OFFER', newRequest(MESSAGE_TYPE.offer), undefined],
    ['a NAK', newRequest(MESSAGE_TYPE.nak), undefined],
    ['a BOOTREPLY carrying DISCOVER', newRequest(MESSAGE_TYPE.discover, [], { op: BOOTREPLY }), undefined],
    ['a BOOTP request (no message type)', newRequest(MESSAGE_TYPE.discover, [], { options: [] }), undefined],
    [
      'a message type of two bytes',
      newRequest(MESSAGE_TYPE.discover, [], {
        options: [{ code: OPTION.messageType, data: Buffer.from([1, 1]) }],
      }),
      undefined,
    ],
    [
      'message type 9',
      newRequest(MESSAGE_TYPE.discover, [], { options: [{ code: 53, data: Buffer.from([9]) }] }),
      undefined,
    ],
  ])('%s', (_what, request, expected) => {
    const answer = reply(request, newDhcpConfig());
    if (expected === undefined) {
      expect(answer).toBeUndefined();
      return;
    }
    expect(answer).toBeDefined();
    const message = answer?.message;
    expect({
      type: message && messageTypeOf(message),
      destination: answer?.destination,
      yiaddr: message?.yiaddr,
      ciaddr: message?.ciaddr,
      codes: message?.options.map((o) => o.code),
    }).toEqual(expected);
    expect(message).toMatchObject({
      op: BOOTREPLY,
      xid: request.xid,
      chaddr: request.chaddr,
      giaddr: request.giaddr,
      broadcast: request.broadcast,
      siaddr: '0.0.0.0',
    });
    expect(message && optionData(message, OPTION.serverIdentifier)).toEqual(Buffer.from([10, 0, 2, 1]));
  });

  it('offers the lease and the configured options', () => {
    const answer = reply(newRequest(MESSAGE_TYPE.discover), newDhcpConfig({ leaseSeconds: 3600, mtu: 1400 }));
    const message = answer?.message;
    expect(message && optionData(message, OPTION.leaseTime)).toEqual(Buffer.from([0, 0, 0x0e, 0x10]));
    expect(message && optionData(message, OPTION.interfaceMtu)).toEqual(Buffer.from([0x05, 0x78]));
    expect(message && optionData(message, OPTION.router)).toEqual(Buffer.from([10, 0, 2, 1]));
  });

  it.each<[string, Partial<DhcpConfig>]>([
    ['an upper-case, dashed MAC', { clientMac: '02-00-00-0A-00-02' }],
    ['the loopback as broadcast destination', { broadcastAddress: '127.0.0.1' }],
  ])('answers with %s configured', (_what, change) => {
    const answer = reply(newRequest(MESSAGE_TYPE.discover), newDhcpConfig(change));
    expect(answer?.destination).toBe(change.broadcastAddress ?? '10.0.2.255');
  });

  it('sends even a renewal to the broadcast address when the configuration says broadcastOnly', () => {
    const renewal = newRequest(MESSAGE_TYPE.request, [], { ciaddr: '10.0.2.2' });
    expect(reply(renewal, newDhcpConfig({ broadcastOnly: true }))?.destination).toBe('10.0.2.255');
    expect(reply(renewal, newDhcpConfig())?.destination).toBe('10.0.2.2');
  });

  it('throws a bad configuration as a DhcpValueError', () => {
    expect(() => reply(newRequest(MESSAGE_TYPE.discover), newDhcpConfig({ dns: ['fd00::10'] }))).toThrow(
      DhcpValueError,
    );
  });
});
