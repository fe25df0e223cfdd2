import { describe, expect, it } from '@jest/globals';
import type { Network } from '../../kubevirt/index.ts';
import { ipv6Nameservers, masqueradeDhcpv6Config } from './config.ts';

const RESOLV = [
  'search ns1.svc.cluster.local svc.cluster.local cluster.local',
  'nameserver 10.96.0.10',
  'nameserver fd00:10:96::a',
  'options ndots:5',
  '',
].join('\n');

describe('ipv6Nameservers', () => {
  it.each<[string, string, string[]]>([
    ['the IPv6 ones of a dual-stack Pod', RESOLV, ['fd00:10:96::a']],
    [
      'several, in order',
      'nameserver fd00::1\nnameserver 10.0.0.1\nnameserver fd00::2\n',
      ['fd00::1', 'fd00::2'],
    ],
    ['one followed by blanks', 'nameserver fd00::1 \t\n', ['fd00::1']],
    ['CRLF lines', 'nameserver fd00::1\r\nnameserver fd00::2\r\n', ['fd00::1', 'fd00::2']],
    ['none from an IPv4-only file', 'nameserver 10.96.0.10\n', []],
    ['none from an empty file', '', []],
    ['not a scoped address', 'nameserver fe80::1%eth0\n', []],
    ['not a line with two addresses', 'nameserver fd00::1 fd00::2\n', []],
    ['not a line with a comment after the address', 'nameserver fd00::1 # cluster DNS\n', []],
    ['not an indented line', ' nameserver fd00::1\n', []],
    ['not a commented line', '# nameserver fd00::1\n', []],
  ])('reads %s', (_what, text, expected) => {
    expect(ipv6Nameservers(text)).toEqual(expected);
  });
});

describe('masqueradeDhcpv6Config', () => {
  const pod = (vmIPv6NetworkCIDR?: string): Network => ({
    name: 'default',
    pod: vmIPv6NetworkCIDR === undefined ? {} : { vmIPv6NetworkCIDR },
  });

  it("gives the guest fd10:0:2::2 for 999 days, the bridge's DUID-LL and the Pod's IPv6 DNS", () => {
    const config = masqueradeDhcpv6Config({
      network: pod(),
      networkIndex: 0,
      serverMac: '02:00:00:00:00:00',
      resolvConf: RESOLV,
    });
    expect(config).toEqual({
      address: 'fd10:0:2::2',
      preferredLifetime: 86_313_600,
      validLifetime: 86_313_600,
      dns: ['fd00:10:96::a'],
      searchDomains: [],
      serverDuid: Buffer.from('00030001020000000000', 'hex'),
    });
  });

  it.each<[string, string]>([
    ['fd20:1:2::/64', 'fd20:1:2::2'],
    ['fd20:1:2::80/121', 'fd20:1:2::82'],
    ['', 'fd10:0:2::2'],
  ])('takes the second address of vmIPv6NetworkCIDR %j', (cidr, address) => {
    const input = { network: pod(cidr), networkIndex: 0, serverMac: '02:00:00:00:00:00', resolvConf: '' };
    expect(masqueradeDhcpv6Config(input).address).toBe(address);
  });

  it('refuses a vmIPv6NetworkCIDR without room for the guest, naming the field', () => {
    const input = {
      network: pod('fd20::/127'),
      networkIndex: 2,
      serverMac: '02:00:00:00:00:00',
      resolvConf: '',
    };
    expect(() => masqueradeDhcpv6Config(input)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID', field: 'spec.networks[2].pod.vmIPv6NetworkCIDR' }),
    );
  });
});
