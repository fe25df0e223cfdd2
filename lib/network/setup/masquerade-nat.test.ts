import { describe, expect, it } from '@jest/globals';
import type { IpFamily } from './addresses.ts';
import { masqueradeNatScript, type Port } from './masquerade-nat.ts';

const ENDPOINTS: Readonly<Record<IpFamily, { gateway: string; guest: string; loopback: string }>> = {
  ip: { gateway: '10.0.2.1', guest: '10.0.2.2', loopback: '127.0.0.1' },
  ip6: { gateway: 'fd10:0:2::1', guest: 'fd10:0:2::2', loopback: '::1' },
};

/** The lines every script starts with: the table replaced, KubeVirt's chains, masquerade and the jumps. */
function head(f: IpFamily): string[] {
  const { guest } = ENDPOINTS[f];
  return [
    `add table ${f} nat`,
    `delete table ${f} nat`,
    `add table ${f} nat`,
    `add chain ${f} nat prerouting { type nat hook prerouting priority -100; }`,
    `add chain ${f} nat input { type nat hook input priority 100; }`,
    `add chain ${f} nat output { type nat hook output priority -100; }`,
    `add chain ${f} nat postrouting { type nat hook postrouting priority 100; }`,
    `add chain ${f} nat KUBEVIRT_PREINBOUND`,
    `add chain ${f} nat KUBEVIRT_POSTINBOUND`,
    `add rule ${f} nat postrouting ${f} saddr ${guest} counter masquerade`,
    `add rule ${f} nat prerouting iifname "eth0" counter jump KUBEVIRT_PREINBOUND`,
    `add rule ${f} nat postrouting oifname "k6t-eth0" counter jump KUBEVIRT_POSTINBOUND`,
  ];
}

/** The three rules of one forwarded port (protocol and port), or of all traffic (undefined). */
function forward(f: IpFamily, p?: [string, number]): string[] {
  const { gateway, guest, loopback } = ENDPOINTS[f];
  const dport = p === undefined ? '' : `${p[0]} dport ${p[1]} `;
  const inbound = p === undefined ? '' : `${p[0]} dport { ${p[1]} } `;
  return [
    `add rule ${f} nat KUBEVIRT_PREINBOUND ${inbound}counter dnat to ${guest}`,
    `add rule ${f} nat KUBEVIRT_POSTINBOUND ${dport}${f} saddr { ${loopback} } counter snat to ${gateway}`,
    `add rule ${f} nat output ${f} daddr { ${loopback} } ${dport}counter dnat to ${guest}`,
  ];
}

const script = (f: IpFamily, ports: readonly Port[], index = 0): string =>
  masqueradeNatScript({
    family: f,
    podInterface: 'eth0',
    bridge: 'k6t-eth0',
    ...ENDPOINTS[f],
    ports,
    interfaceIndex: index,
  });

describe('masqueradeNatScript', () => {
  it.each<{ family: IpFamily; case: string; ports: Port[]; forwarded: ([string, number] | undefined)[] }>([
    { family: 'ip', case: 'no ports: everything', ports: [], forwarded: [undefined] },
    { family: 'ip6', case: 'no ports: everything', ports: [], forwarded: [undefined] },
    { family: 'ip', case: 'one port, TCP by default', ports: [{ port: 8080 }], forwarded: [['tcp', 8080]] },
    { family: 'ip6', case: 'one port, TCP by default', ports: [{ port: 8080 }], forwarded: [['tcp', 8080]] },
    {
      family: 'ip',
      case: 'protocols lowercased, in order',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
        { port: 9, protocol: 'sctp' },
        { port: 65535, protocol: '' },
      ],
      forwarded: [
        ['tcp', 80],
        ['udp', 53],
        ['sctp', 9],
        ['tcp', 65535],
      ],
    },
    {
      family: 'ip6',
      case: 'two ports',
      ports: [{ port: 22 }, { port: 53, protocol: 'Udp' }],
      forwarded: [
        ['tcp', 22],
        ['udp', 53],
      ],
    },
  ])('$family, $case', ({ family, ports, forwarded }) => {
    const lines = [...head(family), ...forwarded.flatMap((p) => forward(family, p))];
    expect(script(family, ports)).toBe(lines.join('\n') + '\n');
  });

  it('writes port 8080 over IPv4 as KubeVirt adds its rules', () => {
    expect(script('ip', [{ port: 8080 }])).toBe(
      [
        'add table ip nat',
        'delete table ip nat',
        'add table ip nat',
        'add chain ip nat prerouting { type nat hook prerouting priority -100; }',
        'add chain ip nat input { type nat hook input priority 100; }',
        'add chain ip nat output { type nat hook output priority -100; }',
        'add chain ip nat postrouting { type nat hook postrouting priority 100; }',
        'add chain ip nat KUBEVIRT_PREINBOUND',
        'add chain ip nat KUBEVIRT_POSTINBOUND',
        'add rule ip nat postrouting ip saddr 10.0.2.2 counter masquerade',
        'add rule ip nat prerouting iifname "eth0" counter jump KUBEVIRT_PREINBOUND',
        'add rule ip nat postrouting oifname "k6t-eth0" counter jump KUBEVIRT_POSTINBOUND',
        'add rule ip nat KUBEVIRT_PREINBOUND tcp dport { 8080 } counter dnat to 10.0.2.2',
        'add rule ip nat KUBEVIRT_POSTINBOUND tcp dport 8080 ip saddr { 127.0.0.1 } counter snat to 10.0.2.1',
        'add rule ip nat output ip daddr { 127.0.0.1 } tcp dport 8080 counter dnat to 10.0.2.2',
        '',
      ].join('\n'),
    );
  });

  it.each<{ case: string; ports: Port[]; field: string }>([
    { case: 'port 0', ports: [{ port: 0 }], field: 'spec.domain.devices.interfaces[2].ports[0]' },
    {
      case: 'port 65536',
      ports: [{ port: 80 }, { port: 65536 }],
      field: 'spec.domain.devices.interfaces[2].ports[1]',
    },
    { case: 'negative port', ports: [{ port: -1 }], field: 'spec.domain.devices.interfaces[2].ports[0]' },
    {
      case: 'protocol ICMP',
      ports: [{ port: 80 }, { port: 80, protocol: 'ICMP' }],
      field: 'spec.domain.devices.interfaces[2].ports[1].protocol',
    },
  ])('refuses $case, naming $field', ({ ports, field }) => {
    expect(() => script('ip', ports, 2)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID', field, name: 'InvalidFieldError' }),
    );
  });
});
