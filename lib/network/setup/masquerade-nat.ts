/**
 * The nftables script of the masquerade binding for one address family (kubevirt
 * pkg/network/setup/netpod/masquerade masquerade.go setupNATByFamily, tag v1.6.2), as text for one atomic
 * `nft -f -` run inside the launcher Pod's network namespace. KubeVirt's istio variants (proxied and reserved
 * ports, the istio loopback address) and the legacy migration ports it may skip are not supported here.
 */
import type { Interface } from '../../kubevirt/index.ts';
import { InvalidFieldError } from '../../kubevirt/field-error.ts';
import type { IpFamily } from './addresses.ts';

export type Port = NonNullable<Interface['ports']>[number];
type Protocol = 'tcp' | 'udp' | 'sctp';

const PROTOCOLS: readonly string[] = ['tcp', 'udp', 'sctp'] satisfies Protocol[];
const TABLE = 'nat';
const PRE_INBOUND = 'KUBEVIRT_PREINBOUND';
const POST_INBOUND = 'KUBEVIRT_POSTINBOUND';
const LOOPBACK: Readonly<Record<IpFamily, string>> = { ip: '127.0.0.1', ip6: '::1' };

/** The base chains with KubeVirt's hooks and priorities. */
const BASE_CHAINS = [
  ['prerouting', 'prerouting', -100],
  ['input', 'input', 100],
  ['output', 'output', -100],
  ['postrouting', 'postrouting', 100],
] as const;

interface MasqueradeNatSpec {
  readonly family: IpFamily;
  /** The Pod's own interface (`eth0`): traffic entering through it is DNATed to the guest. */
  readonly podInterface: string;
  /** The masquerade bridge (`k6t-eth0`), the guest's side. */
  readonly bridge: string;
  /** The bridge's address in the VM subnet: the guest's default gateway. */
  readonly gateway: string;
  readonly guest: string;
  /** The VMI interface's `ports`: only these are forwarded inbound; all traffic is when it declares none. */
  readonly ports: readonly Port[];
  /** The interface's index in spec.domain.devices.interfaces, for the field path of an invalid port. */
  readonly interfaceIndex: number;
}

interface ForwardedPort {
  readonly protocol: Protocol;
  readonly port: number;
}

/** The ports with their protocol lowercased (TCP when absent); an invalid one is an InvalidFieldError. */
function forwardedPorts(ports: readonly Port[], interfaceIndex: number): ForwardedPort[] {
  return ports.map((p, j) => {
    const field = `spec.domain.devices.interfaces[${interfaceIndex}].ports[${j}]`;
    if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) {
      throw new InvalidFieldError(field, `port ${p.port} is not in range 1-65535`);
    }
    const protocol = (p.protocol ?? '').toLowerCase() || 'tcp';
    if (!PROTOCOLS.includes(protocol)) {
      throw new InvalidFieldError(
        `${field}.protocol`,
        `protocol ${JSON.stringify(p.protocol)} is not TCP, UDP or SCTP`,
      );
    }
    return { protocol: protocol as Protocol, port: p.port };
  });
}

/**
 * The script, one command a line. It first deletes the family's `nat` table (added first, so the delete cannot fail on a
 * fresh namespace), which makes a second run replace the rules rather than append copies of them; it all
 * commits as one transaction.
 */
export function masqueradeNatScript(spec: MasqueradeNatSpec): string {
  const { family, gateway, guest } = spec;
  const ports = forwardedPorts(spec.ports, spec.interfaceIndex);
  const loopback = `{ ${LOOPBACK[family]} }`;
  const rule = (chain: string, body: string): string => `add rule ${family} ${TABLE} ${chain} ${body}`;
  const lines = [
    `add table ${family} ${TABLE}`,
    `delete table ${family} ${TABLE}`,
    `add table ${family} ${TABLE}`,
    ...BASE_CHAINS.map(
      ([name, hook, priority]) =>
        `add chain ${family} ${TABLE} ${name} { type nat hook ${hook} priority ${priority}; }`,
    ),
    `add chain ${family} ${TABLE} ${PRE_INBOUND}`,
    `add chain ${family} ${TABLE} ${POST_INBOUND}`,
    // Connections the guest opens leave with the Pod's address.
    rule('postrouting', `${family} saddr ${guest} counter masquerade`),
    rule('prerouting', `iifname ${JSON.stringify(spec.podInterface)} counter jump ${PRE_INBOUND}`),
    rule('postrouting', `oifname ${JSON.stringify(spec.bridge)} counter jump ${POST_INBOUND}`),
  ];
  // Per forwarded port (or once for all traffic): inbound DNAT to the guest; connections from the Pod's
  // loopback reach the guest with the gateway as their source, since the guest cannot answer 127.0.0.1/::1;
  // and loopback connections opened inside the Pod (a port-forward enters the Pod's namespace on
  // 127.0.0.1:<port>) are DNATed to the guest in the output hook.
  const matches = ports.length === 0 ? [undefined] : ports;
  for (const p of matches) {
    const dport = p === undefined ? '' : `${p.protocol} dport ${p.port} `;
    const inbound = p === undefined ? '' : `${p.protocol} dport { ${p.port} } `;
    lines.push(
      rule(PRE_INBOUND, `${inbound}counter dnat to ${guest}`),
      rule(POST_INBOUND, `${dport}${family} saddr ${loopback} counter snat to ${gateway}`),
      rule('output', `${family} daddr ${loopback} ${dport}counter dnat to ${guest}`),
    );
  }
  return lines.join('\n') + '\n';
}
