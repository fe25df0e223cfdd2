import { describe, expect, it } from '@jest/globals';
import type { Interface } from '../../kubevirt/index.ts';
import { localMacFromBytes, planPodNetwork } from './plan.ts';
import type { PodInterface } from './pod-interface.ts';
import {
  BRIDGE_MAC,
  bridge,
  input,
  LINK_LOCAL,
  pod,
  rendered,
  ROUTES,
  V4,
  V6,
} from './testing/plan-input.ts';

describe('planPodNetwork, bridge binding', () => {
  it('moves the pod interface under a bridge and leaves a dummy with its addresses', () => {
    const i = input({
      podInterface: pod({ ipv6: [V6, LINK_LOCAL] }),
      iface: bridge(),
      bridgeMac: BRIDGE_MAC,
      queues: 2,
    });
    expect(rendered(i)).toEqual({
      ip: [
        'link add name k6t-eth0 address 02:11:22:33:44:55 type bridge',
        'address add 169.254.75.10/32 dev k6t-eth0',
        'link set dev k6t-eth0 up',
        'link set dev eth0 down',
        'link set dev eth0 name eth0-nic',
        'link set dev eth0-nic address 02:11:22:33:44:55',
        'link set dev eth0-nic master k6t-eth0',
        'address flush dev eth0-nic',
        'link set dev eth0-nic up',
        'link set dev eth0-nic type bridge_slave learning off',
        'tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr multi_queue',
        'link set dev tap0 mtu 1450',
        'link set dev tap0 master k6t-eth0',
        'link set dev tap0 up',
        'link add name eth0 address aa:bb:cc:dd:ee:ff mtu 1450 type dummy',
        'address add 10.244.0.5/24 dev eth0',
        'address add fd00:10:244::5/64 dev eth0',
        'address add fe80::a8bb:ccff:fedd:eeff/64 dev eth0',
        'route add broadcast 10.244.0.255 dev k6t-eth0 table local',
      ],
      sysctl: ['/proc/sys/net/ipv4/conf/all/arp_ignore=1', '/proc/sys/net/ipv6/conf/eth0-nic/disable_ipv6=1'],
      nat: [],
    });
  });

  it('names the devices of a secondary network and has no DHCP address without IPv4', () => {
    const i = input({
      podInterface: pod({ name: 'pod16477688c0e', ipv4: [], ipv6: [LINK_LOCAL], routes: [] }),
      network: { name: 'blue', multus: { networkName: 'ns/blue' } },
      iface: bridge({ name: 'blue' }),
      interfaceIndex: 1,
      bridgeMac: BRIDGE_MAC,
    });
    const r = rendered(i);
    expect(r.ip.slice(0, 4)).toEqual([
      'link add name k6t-16477688c0e address 02:11:22:33:44:55 type bridge',
      'link set dev k6t-16477688c0e up',
      'link set dev pod16477688c0e down',
      'link set dev pod16477688c0e name 16477688c0e-nic',
    ]);
    expect(r.ip).toContain('tuntap add dev tap16477688c0e mode tap user 107 group 107 vnet_hdr');
    expect(r.sysctl).toEqual(['/proc/sys/net/ipv6/conf/16477688c0e-nic/disable_ipv6=1']);
    expect(planPodNetwork(i).dhcp).toEqual({ mac: 'aa:bb:cc:dd:ee:ff', mtu: 1450, routes: [] });
  });

  it('keeps the addresses on an ifb link where the kernel has no dummy links, and routes no broadcast of a /31', () => {
    const i = input({
      podInterface: pod({ ipv4: [{ address: '10.1.0.4', prefixLength: 31 }] }),
      iface: bridge(),
      bridgeMac: BRIDGE_MAC,
      placeholderLinkType: 'ifb',
    });
    const r = rendered(i);
    expect(r.ip).toContain('link add name eth0 address aa:bb:cc:dd:ee:ff mtu 1450 type ifb');
    expect(r.ip.filter((l) => l.startsWith('route '))).toEqual([]);
  });

  it.each<{ case: string; iface: Interface; routes: PodInterface['routes']; mac: string; gateway?: string }>([
    {
      case: 'the pod MAC and the default gateway',
      iface: bridge(),
      routes: ROUTES,
      mac: 'aa:bb:cc:dd:ee:ff',
      gateway: '10.244.0.1',
    },
    {
      case: "the VMI interface's MAC",
      iface: bridge({ macAddress: 'de:ad:00:00:be:ef' }),
      routes: ROUTES,
      mac: 'de:ad:00:00:be:ef',
      gateway: '10.244.0.1',
    },
    {
      case: 'no route with a gateway',
      iface: bridge(),
      routes: [{ destination: '10.244.0.0/24' }],
      mac: 'aa:bb:cc:dd:ee:ff',
    },
  ])('remembers for DHCP: $case', ({ iface, routes, mac, gateway }) => {
    const plan = planPodNetwork(input({ iface, podInterface: pod({ routes }), bridgeMac: BRIDGE_MAC }));
    expect(plan.dhcp).toEqual({
      address: V4,
      mac,
      mtu: 1450,
      ...(gateway !== undefined && { gateway }),
      routes: routes.filter((r) => r.destination !== '10.244.0.0/24'),
    });
  });
});

describe('localMacFromBytes', () => {
  it.each<[number[], string]>([
    [[0, 0, 0, 0, 0, 0], '02:00:00:00:00:00'],
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 'fe:ff:ff:ff:ff:ff'],
    [[0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd], '02:23:45:67:89:ab'],
  ])('%j → %s', (bytes, mac) => {
    expect(localMacFromBytes(Uint8Array.from(bytes))).toBe(mac);
  });

  it('needs six bytes', () => {
    expect(() => localMacFromBytes(new Uint8Array(5))).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INTERNAL' }),
    );
  });
});
