import { describe, expect, it } from '@jest/globals';
import { renderSteps, sysctlPath, type Step } from './steps.ts';

describe('renderSteps', () => {
  it.each<[string, Step, string[]]>([
    ['a bridge', { kind: 'add-bridge', name: 'k6t-eth0' }, ['link add name k6t-eth0 type bridge']],
    [
      'a bridge with MAC and MTU',
      { kind: 'add-bridge', name: 'k6t-eth0', mac: '02:00:00:00:00:00', mtu: 1450 },
      ['link add name k6t-eth0 address 02:00:00:00:00:00 mtu 1450 type bridge'],
    ],
    [
      'a single-queue tap',
      { kind: 'add-tap', name: 'tap0', owner: 107, multiQueue: false, mtu: 1500 },
      ['tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr', 'link set dev tap0 mtu 1500'],
    ],
    [
      'a multi-queue tap',
      { kind: 'add-tap', name: 'tap16477688c0e', owner: 107, multiQueue: true, mtu: 9000 },
      [
        'tuntap add dev tap16477688c0e mode tap user 107 group 107 vnet_hdr multi_queue',
        'link set dev tap16477688c0e mtu 9000',
      ],
    ],
    [
      'a dummy',
      { kind: 'add-dummy', name: 'eth0', mac: 'AA:bb:cc:dd:ee:ff', mtu: 1450, linkType: 'dummy' },
      ['link add name eth0 address AA:bb:cc:dd:ee:ff mtu 1450 type dummy'],
    ],
    [
      'an ifb standing for a dummy',
      { kind: 'add-dummy', name: 'eth0', mac: 'aa:bb:cc:dd:ee:ff', mtu: 1500, linkType: 'ifb' },
      ['link add name eth0 address aa:bb:cc:dd:ee:ff mtu 1500 type ifb'],
    ],
    ['down', { kind: 'set-down', link: 'eth0' }, ['link set dev eth0 down']],
    ['a rename', { kind: 'rename', link: 'eth0', to: 'eth0-nic' }, ['link set dev eth0 name eth0-nic']],
    [
      'a MAC',
      { kind: 'set-mac', link: 'eth0-nic', mac: '02:11:22:33:44:55' },
      ['link set dev eth0-nic address 02:11:22:33:44:55'],
    ],
    ['a flush', { kind: 'flush-addresses', link: 'eth0-nic' }, ['address flush dev eth0-nic']],
    [
      'an IPv4 address',
      { kind: 'add-address', link: 'k6t-eth0', address: { address: '10.0.2.1', prefixLength: 24 } },
      ['address add 10.0.2.1/24 dev k6t-eth0'],
    ],
    [
      'an IPv6 address',
      { kind: 'add-address', link: 'k6t-eth0', address: { address: 'fd10:0:2::1', prefixLength: 120 } },
      ['address add fd10:0:2::1/120 dev k6t-eth0'],
    ],
    ['a port', { kind: 'enslave', link: 'tap0', bridge: 'k6t-eth0' }, ['link set dev tap0 master k6t-eth0']],
    [
      'no learning',
      { kind: 'learning-off', link: 'eth0-nic' },
      ['link set dev eth0-nic type bridge_slave learning off'],
    ],
    ['up', { kind: 'set-up', link: 'tap0' }, ['link set dev tap0 up']],
    [
      'a broadcast route',
      { kind: 'broadcast-route', address: '10.244.0.255', link: 'k6t-eth0' },
      ['route add broadcast 10.244.0.255 dev k6t-eth0 table local'],
    ],
    ['a sysctl: no ip line', { kind: 'sysctl', key: 'ipv4/ip_forward', value: '1' }, []],
    ['NAT: no ip line', { kind: 'nat', family: 'ip', script: 'add table ip nat\n' }, []],
  ])('%s', (_case, step, lines) => {
    expect(renderSteps([step]).ipBatch).toEqual(lines);
  });

  it('keeps the order of each part and joins the NAT of both families', () => {
    const rendered = renderSteps([
      { kind: 'add-bridge', name: 'k6t-eth0' },
      { kind: 'sysctl', key: 'ipv4/conf/k6t-eth0/route_localnet', value: '1' },
      { kind: 'set-up', link: 'k6t-eth0' },
      { kind: 'nat', family: 'ip', script: 'add table ip nat\n' },
      { kind: 'sysctl', key: 'ipv6/conf/all/forwarding', value: '1' },
      { kind: 'nat', family: 'ip6', script: 'add table ip6 nat\n' },
    ]);
    expect(rendered).toEqual({
      ipBatch: ['link add name k6t-eth0 type bridge', 'link set dev k6t-eth0 up'],
      sysctls: [
        { path: '/proc/sys/net/ipv4/conf/k6t-eth0/route_localnet', value: '1' },
        { path: '/proc/sys/net/ipv6/conf/all/forwarding', value: '1' },
      ],
      nftScript: 'add table ip nat\nadd table ip6 nat\n',
    });
  });

  it('renders nothing for no steps', () => {
    expect(renderSteps([])).toEqual({ ipBatch: [], sysctls: [], nftScript: '' });
  });

  it.each<[string, Step]>([
    ['a name over 15 characters', { kind: 'set-up', link: 'a-very-long-name0' }],
    ['a name with a space', { kind: 'set-up', link: 'eth0 up; x' }],
    ['a name with a slash', { kind: 'rename', link: 'eth0', to: 'a/b' }],
    ['the name ..', { kind: 'set-down', link: '..' }],
    ['an empty name', { kind: 'set-down', link: '' }],
    ['a bad MAC', { kind: 'set-mac', link: 'eth0', mac: '02:00:00:00:00' }],
    [
      'a bad address',
      { kind: 'add-address', link: 'eth0', address: { address: '10.0.2', prefixLength: 24 } },
    ],
    [
      'a bad prefix',
      { kind: 'add-address', link: 'eth0', address: { address: '10.0.2.1', prefixLength: 1.5 } },
    ],
    ['a sysctl out of /proc/sys/net', { kind: 'sysctl', key: '../kernel/core_pattern', value: '|x' }],
    ['a broadcast route to IPv6', { kind: 'broadcast-route', address: 'fd00::ff', link: 'k6t-eth0' }],
    ['a sysctl with an empty part', { kind: 'sysctl', key: 'ipv4//ip_forward', value: '1' }],
  ])('refuses %s', (_case, step) => {
    expect(() => renderSteps([step])).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});

describe('sysctlPath', () => {
  it.each<[string, string]>([
    ['ipv4/ip_forward', '/proc/sys/net/ipv4/ip_forward'],
    ['ipv4/conf/k6t-16477688c0e/route_localnet', '/proc/sys/net/ipv4/conf/k6t-16477688c0e/route_localnet'],
    ['ipv4/conf/eth0.100/arp_ignore', '/proc/sys/net/ipv4/conf/eth0.100/arp_ignore'],
  ])('%s → %s', (key, path) => {
    expect(sysctlPath(key)).toBe(path);
  });
});
