import { describe, expect, it } from '@jest/globals';
import { DhcpValueError } from './errors.ts';
import type { DhcpOption } from './message.ts';
import {
  addressesOption,
  classlessRoutesOption,
  domainSearchOption,
  leaseTimeOption,
  MESSAGE_TYPE,
  messageTypeOption,
  mtuOption,
  OPTION,
  privateOption,
  subnetMaskOption,
  textOption,
  type ClasslessRoute,
} from './options.ts';

const bytes = (o: DhcpOption): [number, number[]] => [o.code, [...o.data]];
const label = (s: string): number[] => [s.length, ...Buffer.from(s, 'ascii')];

describe('DHCP options', () => {
  it.each<[string, () => DhcpOption, number, number[]]>([
    ['message type OFFER', () => messageTypeOption(MESSAGE_TYPE.offer), 53, [2]],
    ['subnet mask /24', () => subnetMaskOption(24), 1, [255, 255, 255, 0]],
    ['subnet mask /30', () => subnetMaskOption(30), 1, [255, 255, 255, 252]],
    ['router', () => addressesOption(OPTION.router, ['192.168.2.1']), 3, [192, 168, 2, 1]],
    [
      'two DNS servers',
      () => addressesOption(OPTION.dnsServers, ['10.96.0.10', '8.8.8.8']),
      6,
      [10, 96, 0, 10, 8, 8, 8, 8],
    ],
    [
      'NTP servers',
      () => addressesOption(OPTION.ntpServers, ['192.168.2.2', '192.168.2.3']),
      42,
      [192, 168, 2, 2, 192, 168, 2, 3],
    ],
    ['server identifier', () => addressesOption(OPTION.serverIdentifier, ['10.0.2.1']), 54, [10, 0, 2, 1]],
    ['hostname', () => textOption(OPTION.hostname, 'myhost'), 12, [...Buffer.from('myhost')]],
    ['MTU 1500', () => mtuOption(1500), 26, [0x05, 0xdc]],
    ['MTU 68', () => mtuOption(68), 26, [0, 68]],
    ['lease of 999 days', () => leaseTimeOption(86_313_600), 51, [0x05, 0x25, 0x0a, 0x80]],
    ['lease 0xffffffff', () => leaseTimeOption(0xffffffff), 51, [255, 255, 255, 255]],
    [
      'a private option',
      () => privateOption(240, 'private.options.kubevirt.io'),
      240,
      [...Buffer.from('private.options.kubevirt.io')],
    ],
    ['an empty private option', () => privateOption(224, ''), 224, []],
  ])('encodes %s', (_what, encode, code, data) => {
    expect(bytes(encode())).toEqual([code, data]);
  });

  it.each<[string, string[], number[]]>([
    [
      'two domains (KubeVirt)',
      ['foo.com', 'foo.local'],
      [...label('foo'), ...label('com'), 0, ...label('foo'), ...label('local'), 0],
    ],
    ['a one-label domain', ['local'], [...label('local'), 0]],
    [
      'a fully qualified name, one root label',
      ['a.svc.cluster.local.'],
      [...label('a'), ...label('svc'), ...label('cluster'), ...label('local'), 0],
    ],
    ['a 63-character label', [`${'a'.repeat(63)}.com`], [...label('a'.repeat(63)), ...label('com'), 0]],
    [
      'underscores and digits',
      ['_srv.1a.example'],
      [...label('_srv'), ...label('1a'), ...label('example'), 0],
    ],
  ])('encodes the search list of %s (RFC 3397)', (_what, domains, data) => {
    expect(bytes(domainSearchOption(domains))).toEqual([119, data]);
  });

  it('encodes a search list past 255 bytes whole, for the message to split', () => {
    const domains = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(40)}x.com`);
    expect(domainSearchOption(domains).data.length).toBe(6 * (1 + 41 + 4 + 1));
  });

  it.each([
    ['-foo.com'],
    ['foo.com-'],
    ['foo,com'],
    ['foo\n.com'],
    ['Foo.com'],
    [`${'a'.repeat(64)}.com`],
    [`${'a'.repeat(250)}.com`],
    ['foo..com'],
    ['foo.123'],
    [''],
    ['.'],
  ])('refuses the search domain %j', (domain) => {
    expect(() => domainSearchOption(['ok.com', domain])).toThrow(DhcpValueError);
    expect(() => domainSearchOption(['ok.com', domain])).toThrow(/^option 119: /);
  });

  it.each<[string, ClasslessRoute[], number[]]>([
    [
      'a multicast route and a gatewayed one (KubeVirt)',
      [{ destination: '224.0.0.0/4' }, { destination: '192.168.1.0/24', gateway: '192.168.2.1' }],
      [4, 224, 0, 0, 0, 0, 24, 192, 168, 1, 192, 168, 2, 1],
    ],
    [
      'OpenShift: the default route goes last',
      [
        { destination: '0.0.0.0/0', gateway: '10.129.0.1' },
        { destination: '10.128.0.0/14' },
        { destination: '224.0.0.0/4' },
      ],
      [14, 10, 128, 0, 0, 0, 0, 4, 224, 0, 0, 0, 0, 0, 10, 129, 0, 1],
    ],
    [
      'Calico: a host route to the gateway, then the default route',
      [{ destination: '0.0.0.0/0', gateway: '169.254.1.1' }, { destination: '169.254.1.1/32' }],
      [32, 169, 254, 1, 1, 0, 0, 0, 0, 0, 169, 254, 1, 1],
    ],
    ['host bits cleared', [{ destination: '10.1.2.3/9', gateway: '10.0.0.1' }], [9, 10, 0, 10, 0, 0, 1]],
  ])('encodes the routes of %s (RFC 3442)', (_what, routes, data) => {
    expect(bytes(classlessRoutesOption(routes))).toEqual([121, data]);
  });

  it.each<[string, () => DhcpOption, string]>([
    ['no addresses', () => addressesOption(OPTION.dnsServers, []), 'option 6'],
    ['an IPv6 DNS server', () => addressesOption(OPTION.dnsServers, ['fd00::10']), 'option 6'],
    ['an NTP server name', () => addressesOption(OPTION.ntpServers, ['pool.ntp.org']), 'option 42'],
    ['a /33 mask', () => subnetMaskOption(33), 'option 1'],
    ['an empty hostname', () => textOption(OPTION.hostname, ''), 'option 12'],
    ['MTU 67', () => mtuOption(67), 'option 26'],
    ['MTU 65536', () => mtuOption(65536), 'option 26'],
    ['a negative lease', () => leaseTimeOption(-1), 'option 51'],
    ['a lease past 32 bits', () => leaseTimeOption(2 ** 32), 'option 51'],
    ['no search domains', () => domainSearchOption([]), 'option 119'],
    ['no routes', () => classlessRoutesOption([]), 'option 121'],
    [
      'a route without a prefix length',
      () => classlessRoutesOption([{ destination: '10.0.0.0' }]),
      'option 121',
    ],
    ['a /33 route', () => classlessRoutesOption([{ destination: '10.0.0.0/33' }]), 'option 121'],
    ['an IPv6 route', () => classlessRoutesOption([{ destination: 'fd00::/64' }]), 'option 121'],
    [
      'an IPv6 gateway',
      () => classlessRoutesOption([{ destination: '10.0.0.0/8', gateway: 'fd00::1' }]),
      'option 121',
    ],
    ['private option 223', () => privateOption(223, 'x'), 'option 223'],
    ['private option 255', () => privateOption(255, 'x'), 'option 255'],
  ])('refuses %s', (_what, encode, field) => {
    expect(encode).toThrow(DhcpValueError);
    expect(encode).toThrow(new RegExp(`^${field}: `));
  });
});
