import { describe, expect, it } from '@jest/globals';
import { planPodNetwork, type PlanInput } from './plan.ts';
import { renderSteps } from './steps.ts';
import { bridge, input, LINK_LOCAL, masquerade, pod, rendered, V6 } from './testing/plan-input.ts';

const MASQUERADE_TAP = [
  'link set dev tap0 mtu 1450',
  'link set dev tap0 master k6t-eth0',
  'link set dev tap0 up',
];

describe('planPodNetwork, masquerade', () => {
  it.each<{ case: string; input: PlanInput; ip: string[]; sysctl: string[]; nat: string[] }>([
    {
      case: 'IPv4',
      input: input({}),
      ip: [
        'link add name k6t-eth0 address 02:00:00:00:00:00 mtu 1450 type bridge',
        'address add 10.0.2.1/24 dev k6t-eth0',
        'link set dev k6t-eth0 up',
        'tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr',
        ...MASQUERADE_TAP,
      ],
      sysctl: ['/proc/sys/net/ipv4/conf/k6t-eth0/route_localnet=1', '/proc/sys/net/ipv4/ip_forward=1'],
      nat: ['ip'],
    },
    {
      case: 'dual stack, 4 queues',
      input: input({ podInterface: pod({ ipv6: [V6, LINK_LOCAL] }), queues: 4 }),
      ip: [
        'link add name k6t-eth0 address 02:00:00:00:00:00 mtu 1450 type bridge',
        'address add 10.0.2.1/24 dev k6t-eth0',
        'address add fd10:0:2::1/120 dev k6t-eth0',
        'link set dev k6t-eth0 up',
        'tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr multi_queue',
        ...MASQUERADE_TAP,
      ],
      sysctl: [
        '/proc/sys/net/ipv4/conf/k6t-eth0/route_localnet=1',
        '/proc/sys/net/ipv4/ip_forward=1',
        '/proc/sys/net/ipv6/conf/all/forwarding=1',
      ],
      nat: ['ip', 'ip6'],
    },
    {
      case: 'IPv6 only (a link-local IPv4 does not count), custom CIDR, e1000 with 4 queues',
      input: input({
        podInterface: pod({ ipv4: [{ address: '169.254.1.1', prefixLength: 16 }], ipv6: [V6] }),
        network: { name: 'default', pod: { vmIPv6NetworkCIDR: 'fd20::/64' } },
        iface: masquerade({ model: 'e1000' }),
        queues: 4,
      }),
      ip: [
        'link add name k6t-eth0 address 02:00:00:00:00:00 mtu 1450 type bridge',
        'address add fd20::1/64 dev k6t-eth0',
        'link set dev k6t-eth0 up',
        'tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr',
        ...MASQUERADE_TAP,
      ],
      sysctl: ['/proc/sys/net/ipv6/conf/all/forwarding=1'],
      nat: ['ip6'],
    },
    {
      case: 'a custom IPv4 CIDR, virtio with 2 queues',
      input: input({
        network: { name: 'default', pod: { vmNetworkCIDR: '10.11.12.0/28' } },
        iface: masquerade({ model: 'virtio' }),
        queues: 2,
      }),
      ip: [
        'link add name k6t-eth0 address 02:00:00:00:00:00 mtu 1450 type bridge',
        'address add 10.11.12.1/28 dev k6t-eth0',
        'link set dev k6t-eth0 up',
        'tuntap add dev tap0 mode tap user 107 group 107 vnet_hdr multi_queue',
        ...MASQUERADE_TAP,
      ],
      sysctl: ['/proc/sys/net/ipv4/conf/k6t-eth0/route_localnet=1', '/proc/sys/net/ipv4/ip_forward=1'],
      nat: ['ip'],
    },
  ])('$case', ({ input: i, ip, sysctl, nat }) => {
    expect(rendered(i)).toEqual({ ip, sysctl, nat });
    expect(planPodNetwork(i).dhcp).toBeUndefined();
  });

  it('gives the NAT the gateway and guest of the subnet and the declared ports', () => {
    const plan = planPodNetwork(
      input({
        network: { name: 'default', pod: { vmNetworkCIDR: '10.11.12.0/28' } },
        iface: masquerade({ ports: [{ port: 8080 }] }),
      }),
    );
    const script = renderSteps(plan.steps).nftScript;
    expect(script).toContain(
      'add rule ip nat KUBEVIRT_PREINBOUND tcp dport { 8080 } counter dnat to 10.11.12.2\n',
    );
    expect(script).toContain('snat to 10.11.12.1\n');
    expect(script).toContain('iifname "eth0"');
  });

  it.each<[string, PlanInput, string]>([
    [
      'an invalid port',
      input({ iface: masquerade({ ports: [{ port: 70000 }] }), interfaceIndex: 3 }),
      'KV_ERR_INVALID',
    ],
    [
      'a VM subnet of one address',
      input({ network: { name: 'default', pod: { vmNetworkCIDR: '10.0.0.0/31' } } }),
      'KV_ERR_INVALID',
    ],
    ['neither binding', input({ iface: { name: 'default', sriov: {} } }), 'KV_ERR_INVALID'],
    ['the bridge binding without a bridge MAC', input({ iface: bridge() }), 'KV_ERR_INTERNAL'],
  ])('refuses %s', (_case, i, code) => {
    expect(() => planPodNetwork(i)).toThrow(expect.objectContaining({ code }));
  });
});

describe('a binding plugin attached by tap', () => {
  it('gets its tap alone, up, with the pod interface MTU and no bridge', () => {
    const plan = planPodNetwork({
      podInterface: { name: 'eth0', mtu: 1400, mac: '0a:58:0a:f4:00:07', ipv4: [], ipv6: [], routes: [] },
      iface: { name: 'default', binding: { name: 'deckhouse' } },
      interfaceIndex: 0,
      network: { name: 'default', pod: {} },
      queues: 1,
    });
    expect(plan).toEqual({
      steps: [
        { kind: 'add-tap', name: 'tap0', owner: 107, multiQueue: false, mtu: 1400 },
        { kind: 'set-up', link: 'tap0' },
      ],
    });
  });
});
