import { describe, expect, it } from '@jest/globals';
import { InvalidFieldError } from '../../kubevirt/field-error.ts';
import type { Network } from '../../kubevirt/index.ts';
import {
  bridgeDhcpConfig,
  domainName,
  KUBEVIRT_LEASE_SECONDS,
  masqueradeAddresses,
  masqueradeDhcpConfig,
  parseResolvConf,
  searchDomainsWithSubdomain,
} from './config.ts';

const KUBELET_RESOLV_CONF = [
  'search default.svc.cluster.local svc.cluster.local cluster.local',
  'nameserver 10.96.0.10',
  'options ndots:5',
  '',
].join('\n');

const podNetwork = (vmNetworkCIDR?: string): Network => ({
  name: 'default',
  pod: vmNetworkCIDR === undefined ? {} : { vmNetworkCIDR },
});

describe('the DHCP configuration of an interface', () => {
  it.each<[string, string, string[], string[]]>([
    [
      'the kubelet',
      KUBELET_RESOLV_CONF,
      ['10.96.0.10'],
      ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
    ],
    [
      'two nameservers',
      'nameserver 8.8.8.8\nnameserver 8.8.4.4\n',
      ['8.8.8.8', '8.8.4.4'],
      ['cluster.local'],
    ],
    [
      'a malformed nameserver line among good ones',
      'search example.com\nnameserver 8.8.8.8\nnameserver 8.8.4.4\nnameserver mynameserver\n',
      ['8.8.8.8', '8.8.4.4'],
      ['example.com'],
    ],
    [
      'an IPv6 nameserver (for DHCPv6)',
      'nameserver fd00::10\nnameserver 10.96.0.10\n',
      ['10.96.0.10'],
      ['cluster.local'],
    ],
    ['nothing', '', ['8.8.8.8'], ['cluster.local']],
    ['only IPv6 nameservers', 'nameserver fd00::10\n', ['8.8.8.8'], ['cluster.local']],
    [
      'several search lines, tabs and runs of blanks',
      'search cluster.local\nsearch svc.cluster.local\texample.com   \nnameserver 8.8.8.8\n',
      ['8.8.8.8'],
      ['cluster.local', 'svc.cluster.local', 'example.com'],
    ],
    [
      'the root domain, which the kubelet writes when there is no search domain',
      'search .\nnameserver 1.1.1.1\n',
      ['1.1.1.1'],
      ['cluster.local'],
    ],
    ['an upper-case search domain', 'search LoCaL\r\nnameserver 1.1.1.1\r\n', ['1.1.1.1'], ['local']],
    [
      'comments, indented lines and look-alike keywords',
      '# nameserver 1.1.1.1\n nameserver 2.2.2.2\nnameservers 3.3.3.3\nsearchx a.com\nnameserver 4.4.4.4 # here\n',
      ['4.4.4.4'],
      ['cluster.local'],
    ],
  ])('reads resolv.conf from %s', (_what, text, dns, searchDomains) => {
    expect(parseResolvConf(text)).toEqual({ dns, searchDomains });
  });

  it.each<[string[], string | undefined]>([
    [
      [
        'pix3ob5ymm5jbsjessf0o4e84uvij588rz23iz0o.com',
        't4lanpt7z4ix58nvxl4d.com',
        '14wg5xngig6vzfqjww4kocnky3c9dqjpwkewzlwpf.com',
        '4wg5xngig6vzfqjww4kocnky3c9dqjpwkewzlwpf.com',
      ],
      '14wg5xngig6vzfqjww4kocnky3c9dqjpwkewzlwpf.com',
    ],
    [['aa.com', 'bb.com'], 'aa.com'],
    [[], undefined],
  ])('the domain name of %j is %s', (searchDomains, name) => {
    expect(domainName(searchDomains)).toBe(name);
  });

  const SERVICE = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
  it.each<[string, string[], string | undefined, string[]]>([
    ['no subdomain', SERVICE, undefined, SERVICE],
    ['an empty subdomain', SERVICE, '', SERVICE],
    ['a subdomain', SERVICE, 'sub', ['sub.default.svc.cluster.local', ...SERVICE]],
    [
      'a subdomain, the longest service domain last',
      ['svc.cluster.local', 'cluster.local', 'default.svc.cluster.local'],
      'sub',
      ['sub.default.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'default.svc.cluster.local'],
    ],
    [
      'a subdomain already in the longest service domain',
      ['svc.cluster.local', 'sub.default.svc.cluster.local'],
      'sub',
      ['svc.cluster.local', 'sub.default.svc.cluster.local'],
    ],
    [
      'a subdomain, a longer domain that is not a service one',
      [...SERVICE, 'this.is.a.very.very.very.long.entry'],
      'sub',
      ['sub.default.svc.cluster.local', ...SERVICE, 'this.is.a.very.very.very.long.entry'],
    ],
    ['a subdomain, no service domain', ['example.com'], 'sub', ['example.com']],
  ])('search domains with %s', (_what, searchDomains, subdomain, expected) => {
    expect(searchDomainsWithSubdomain(searchDomains, subdomain)).toEqual(expected);
  });

  it.each<[string | undefined, string, string, number]>([
    [undefined, '10.0.2.1', '10.0.2.2', 24],
    ['', '10.0.2.1', '10.0.2.2', 24],
    ['10.0.0.0/30', '10.0.0.1', '10.0.0.2', 30],
    ['192.168.100.0/24', '192.168.100.1', '192.168.100.2', 24],
    ['172.16.5.77/16', '172.16.0.1', '172.16.0.2', 16],
  ])(
    'the masquerade addresses of vmNetworkCIDR %j: gateway %s, guest %s',
    (cidr, gateway, guest, prefixLength) => {
      expect(masqueradeAddresses(podNetwork(cidr), 0)).toEqual({ gateway, guest, prefixLength });
    },
  );

  it.each<[string, string]>([
    ['10.0.0.0/31', 'fewer than two host addresses'],
    ['10.0.0.0/32', 'fewer than two host addresses'],
    ['10.0.0.0/33', 'not a valid CIDR'],
    ['10.0.0.0', 'not a valid CIDR'],
    ['10.0.0/24', 'not a valid CIDR'],
    ['fd10:0:2::/120', 'not a valid CIDR'],
    ['10.0.0.0/24 ', 'not a valid CIDR'],
  ])('refuses the vmNetworkCIDR %j: %s', (cidr, detail) => {
    const attempt = (): unknown => masqueradeAddresses(podNetwork(cidr), 2);
    expect(attempt).toThrow(InvalidFieldError);
    expect(attempt).toThrow(`spec.networks[2].pod.vmNetworkCIDR: `);
    expect(attempt).toThrow(detail);
  });

  it('builds the masquerade configuration', () => {
    const config = masqueradeDhcpConfig({
      network: podNetwork('10.11.12.0/28'),
      networkIndex: 0,
      clientMac: '02:00:00:0a:00:02',
      mtu: 1450,
      resolvConf: KUBELET_RESOLV_CONF,
      hostname: 'vmi-a',
      subdomain: 'sub',
      dhcpOptions: { bootFileName: 'pxelinux.0' },
    });
    expect(config).toEqual({
      clientMac: '02:00:00:0a:00:02',
      clientIp: '10.11.12.2',
      prefixLength: 28,
      gateway: '10.11.12.1',
      serverIp: '10.11.12.1',
      broadcastAddress: '10.11.12.15',
      mtu: 1450,
      dns: ['10.96.0.10'],
      searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      hostname: 'vmi-a',
      subdomain: 'sub',
      leaseSeconds: KUBEVIRT_LEASE_SECONDS,
      dhcpOptions: { bootFileName: 'pxelinux.0' },
    });
    expect(KUBEVIRT_LEASE_SECONDS).toBe(86_313_600);
  });

  it('builds the bridge configuration from what the pod interface had', () => {
    const config = bridgeDhcpConfig({
      lease: {
        address: { address: '10.244.0.5', prefixLength: 24 },
        mac: 'aa:bb:cc:dd:ee:ff',
        mtu: 1450,
        gateway: '10.244.0.1',
        routes: [{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }],
      },
      interfaceIndex: 1,
      clientMac: 'aa:bb:cc:dd:ee:ff',
      resolvConf: KUBELET_RESOLV_CONF,
      hostname: 'vmi-b',
    });
    expect(config).toEqual({
      clientMac: 'aa:bb:cc:dd:ee:ff',
      clientIp: '10.244.0.5',
      prefixLength: 24,
      gateway: '10.244.0.1',
      serverIp: '169.254.75.11',
      broadcastAddress: '10.244.0.255',
      broadcastOnly: true,
      mtu: 1450,
      dns: ['10.96.0.10'],
      searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      hostname: 'vmi-b',
      routes: [{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }],
      leaseSeconds: KUBEVIRT_LEASE_SECONDS,
    });
  });
});
