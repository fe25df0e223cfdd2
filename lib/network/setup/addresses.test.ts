import { describe, expect, it } from '@jest/globals';
import {
  anyGlobalUnicast,
  broadcastOf,
  isGlobalUnicast,
  networkOf,
  vmSubnet,
  type IpFamily,
} from './addresses.ts';

describe('vmSubnet', () => {
  it.each<{ family: IpFamily; cidr: string; gateway: string; prefixLength: number; guest: string }>([
    { family: 'ip', cidr: '', gateway: '10.0.2.1', prefixLength: 24, guest: '10.0.2.2' },
    { family: 'ip6', cidr: '', gateway: 'fd10:0:2::1', prefixLength: 120, guest: 'fd10:0:2::2' },
    { family: 'ip', cidr: '10.10.10.0/30', gateway: '10.10.10.1', prefixLength: 30, guest: '10.10.10.2' },
    { family: 'ip', cidr: '192.168.7.99/24', gateway: '192.168.7.1', prefixLength: 24, guest: '192.168.7.2' },
    { family: 'ip', cidr: '172.16.0.0/12', gateway: '172.16.0.1', prefixLength: 12, guest: '172.16.0.2' },
    { family: 'ip6', cidr: 'fd00:1::/64', gateway: 'fd00:1::1', prefixLength: 64, guest: 'fd00:1::2' },
    {
      family: 'ip6',
      cidr: 'FD00:0:0:0:0:0:0:FF00/126',
      gateway: 'fd00::ff01',
      prefixLength: 126,
      guest: 'fd00::ff02',
    },
    {
      family: 'ip6',
      cidr: '2001:db8::ffff:0/112',
      gateway: '2001:db8::ffff:1',
      prefixLength: 112,
      guest: '2001:db8::ffff:2',
    },
  ])(
    '$family $cidr: gateway $gateway/$prefixLength, guest $guest',
    ({ family, cidr, gateway, prefixLength, guest }) => {
      expect(vmSubnet(family, cidr, 'f')).toEqual({ gateway: { address: gateway, prefixLength }, guest });
    },
  );

  it.each<[IpFamily, string, RegExp]>([
    ['ip', '10.0.0.0/31', /fewer than two host addresses/],
    ['ip', '10.0.0.1/32', /fewer than two host addresses/],
    ['ip6', 'fd10::/127', /fewer than two host addresses/],
    ['ip', '10.0.0.0', /not a valid CIDR/],
    ['ip', '10.0.0.0/33', /not a valid CIDR/],
    ['ip', '10.0.0.0/x', /not a valid CIDR/],
    ['ip', '10.0.0.0/24/1', /not a valid CIDR/],
    ['ip', 'fd10::/64', /not a valid CIDR/],
    ['ip6', '10.0.2.0/24', /not a valid CIDR/],
    ['ip6', 'fd10::/129', /not a valid CIDR/],
  ])('refuses %s %j', (family, cidr, message) => {
    expect(() => vmSubnet(family, cidr, 'pod.vmNetworkCIDR')).toThrow(message);
    expect(() => vmSubnet(family, cidr, 'pod.vmNetworkCIDR')).toThrow(
      expect.objectContaining({
        code: 'KV_ERR_INVALID',
        message: expect.stringMatching(/^pod\.vmNetworkCIDR: /),
      }),
    );
  });
});

describe('isGlobalUnicast', () => {
  it.each<[string, boolean]>([
    ['10.244.0.5', true],
    ['192.168.1.1', true],
    ['8.8.8.8', true],
    ['0.0.0.0', false],
    ['127.0.0.1', false],
    ['169.254.75.10', false],
    ['169.253.0.1', true],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['fd10:0:2::1', true],
    ['2001:db8::1', true],
    ['::', false],
    ['::1', false],
    ['fe80::1', false],
    ['febf::1', false],
    ['fec0::1', true],
    ['ff02::1', false],
    ['eth0', false],
  ])('%s: %s', (address, expected) => {
    expect(isGlobalUnicast(address)).toBe(expected);
  });

  it('finds one among link-local addresses', () => {
    expect(anyGlobalUnicast([{ address: 'fe80::1', prefixLength: 64 }])).toBe(false);
    expect(
      anyGlobalUnicast([
        { address: 'fe80::1', prefixLength: 64 },
        { address: 'fd00::5', prefixLength: 64 },
      ]),
    ).toBe(true);
  });
});

describe('networkOf', () => {
  it.each<[string, number, string]>([
    ['10.244.0.5', 24, '10.244.0.0/24'],
    ['10.244.1.5', 16, '10.244.0.0/16'],
    ['10.96.0.10', 32, '10.96.0.10/32'],
    ['fd00::5', 64, 'fd00::/64'],
  ])('%s/%i → %s', (address, prefixLength, network) => {
    expect(networkOf({ address, prefixLength })).toBe(network);
  });
});

describe('broadcastOf', () => {
  it.each([
    ['10.244.0.5', 24, '10.244.0.255'],
    ['10.244.1.130', 25, '10.244.1.255'],
    ['192.168.7.1', 30, '192.168.7.3'],
    ['10.0.0.1', 8, '10.255.255.255'],
  ])('%s/%d → %s', (address, prefixLength, broadcast) => {
    expect(broadcastOf({ address, prefixLength })).toBe(broadcast);
  });

  it('refuses IPv6', () => {
    expect(() => broadcastOf({ address: 'fd00::5', prefixLength: 64 })).toThrow(/is not IPv4/);
  });
});
