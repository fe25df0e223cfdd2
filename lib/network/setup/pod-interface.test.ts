import { describe, expect, it } from '@jest/globals';
import { parseLinks, parsePodInterface } from './pod-interface.ts';

// Captured from iproute2 6.1 (`ip -j addr show dev eth0` of a veth, `ip -j -4 route show dev eth0`).
const ADDR = JSON.stringify([
  {
    ifindex: 3,
    link: 'peer0',
    ifname: 'eth0',
    flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'],
    mtu: 1450,
    operstate: 'UP',
    address: '52:ce:f1:39:2e:ba',
    addr_info: [
      { family: 'inet', local: '10.244.0.5', prefixlen: 24, scope: 'global', label: 'eth0' },
      { family: 'inet6', local: 'fd00::5', prefixlen: 64, scope: 'global', tentative: true },
      { family: 'inet6', local: 'fe80::50ce:f1ff:fe39:2eba', prefixlen: 64, scope: 'link' },
    ],
  },
]);
const ROUTES = JSON.stringify([
  { dst: 'default', gateway: '10.244.0.1', flags: [] },
  { dst: '10.96.0.10', gateway: '10.244.0.1', flags: [] },
  { dst: '10.244.0.0/24', protocol: 'kernel', scope: 'link', prefsrc: '10.244.0.5', flags: [] },
]);

describe('parsePodInterface', () => {
  it('reads MTU, MAC, the addresses of each family and the routes', () => {
    expect(parsePodInterface('eth0', ADDR, ROUTES)).toEqual({
      name: 'eth0',
      mtu: 1450,
      mac: '52:ce:f1:39:2e:ba',
      ipv4: [{ address: '10.244.0.5', prefixLength: 24 }],
      ipv6: [
        { address: 'fd00::5', prefixLength: 64 },
        { address: 'fe80::50ce:f1ff:fe39:2eba', prefixLength: 64 },
      ],
      routes: [
        { destination: '0.0.0.0/0', gateway: '10.244.0.1' },
        { destination: '10.96.0.10/32', gateway: '10.244.0.1' },
        { destination: '10.244.0.0/24' },
      ],
    });
  });

  it('reads a link without addresses or routes', () => {
    const addr = JSON.stringify([{ ifname: 'net1', mtu: 1500, address: '02:00:00:00:00:01', addr_info: [] }]);
    expect(parsePodInterface('net1', addr, '')).toEqual({
      name: 'net1',
      mtu: 1500,
      mac: '02:00:00:00:00:01',
      ipv4: [],
      ipv6: [],
      routes: [],
    });
  });

  it.each<[string, string]>([
    ['not JSON', 'Device "eth0" does not exist.'],
    ['not an array', '{}'],
    ['another link', JSON.stringify([{ ifname: 'eth1', mtu: 1500, address: '02:00:00:00:00:01' }])],
    ['no MTU', JSON.stringify([{ ifname: 'eth0', address: '02:00:00:00:00:01' }])],
  ])('refuses %s', (_case, addr) => {
    expect(() => parsePodInterface('eth0', addr, '[]')).toThrow(
      expect.objectContaining({ code: 'KV_ERR_DECODE' }),
    );
  });
});

describe('parseLinks', () => {
  it('reads names and kinds', () => {
    const json = JSON.stringify([
      { ifindex: 1, ifname: 'lo', flags: ['LOOPBACK'] },
      { ifindex: 2, ifname: 'k6t-eth0', linkinfo: { info_kind: 'bridge', info_data: {} } },
      { ifindex: 3, ifname: 'tap0', linkinfo: { info_kind: 'tun', info_slave_kind: 'bridge' } },
      { ifindex: 4, ifname: 'eth0', link: 'peer0', linkinfo: { info_kind: 'veth' } },
    ]);
    expect(parseLinks(json)).toEqual([
      { name: 'lo', kind: '' },
      { name: 'k6t-eth0', kind: 'bridge' },
      { name: 'tap0', kind: 'tun' },
      { name: 'eth0', kind: 'veth' },
    ]);
  });
});
