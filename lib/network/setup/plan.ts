/**
 * The steps that connect one VMI interface of the masquerade or bridge binding to its pod interface inside the
 * launcher Pod's network namespace (kubevirt pkg/network/setup/netpod netpod.go composeDesiredSpec with
 * masqueradeBindingSpec, bridgeBindingSpec and setupNAT, tag v1.6.2), and what the bridge binding keeps of the
 * pod interface for the guest's DHCP (discoverbridge.go storeBridgeBindingDHCPInterfaceData).
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { Interface, Network } from '../../kubevirt/index.ts';
import { bridgedPodInterfaceName, bridgeName, tapDeviceName } from '../link-names.ts';
import {
  anyGlobalUnicast,
  isGlobalUnicast,
  broadcastOf,
  networkOf,
  vmSubnet,
  type IpAddress,
  type IpFamily,
  type VmSubnet,
} from './addresses.ts';
import { masqueradeNatScript } from './masquerade-nat.ts';
import type { PodInterface, Route } from './pod-interface.ts';
import type { PlaceholderLinkType, Step } from './steps.ts';

/** The qemu user and group of a non-root VMI, which opens the tap. */
const TAP_OWNER = 107;
/** The masquerade bridge's fixed MAC (link.StaticMasqueradeBridgeMAC), which no guest may use. */
export const MASQUERADE_BRIDGE_MAC = '02:00:00:00:00:00';
/**
 * The bridge binding's bridge gets `169.254.75.1<interface index>/32`, the address its DHCP server answers
 * from (link.GetFakeBridgeIP).
 */
export const bridgeServerIp = (interfaceIndex: number): string => `169.254.75.1${interfaceIndex}`;

export interface PlanInput {
  /** The pod interface as read from the namespace. */
  readonly podInterface: PodInterface;
  readonly iface: Interface;
  /** The index of iface in spec.domain.devices.interfaces. */
  readonly interfaceIndex: number;
  /** The VMI network iface attaches to. */
  readonly network: Network;
  /** Queues of the tap (virtio only; multi-queue above one). */
  readonly queues: number;
  /**
   * Bridge binding: the MAC of the new bridge, which the pod interface takes too, leaving its own MAC to the
   * guest (KubeVirt copies the new bridge's random MAC; the caller draws one through localMacFromBytes).
   */
  readonly bridgeMac?: string;
  /** Bridge binding: the link type that keeps the pod interface's name and addresses (default `dummy`). */
  readonly placeholderLinkType?: PlaceholderLinkType;
}

/** What the guest's DHCP server hands out for a bridge binding interface. */
export interface BridgeDhcp {
  /** The first global unicast IPv4 address of the pod interface; absent when it has none (no IPAM). */
  readonly address?: IpAddress;
  /** The VMI interface's macAddress, else the pod interface's. */
  readonly mac: string;
  readonly mtu: number;
  readonly gateway?: string;
  /** The pod interface's IPv4 routes but the one to its own subnet. */
  readonly routes: readonly Route[];
}

interface Plan {
  readonly steps: readonly Step[];
  readonly dhcp?: BridgeDhcp;
}

/** A locally administered unicast MAC from six bytes (the caller's random ones give bridgeMac). */
export function localMacFromBytes(bytes: Uint8Array): string {
  const octets = [...bytes.slice(0, 6)];
  if (octets.length !== 6) throw new KvError('KV_ERR_INTERNAL', 'a MAC needs six bytes');
  octets[0] = ((octets[0] ?? 0) & 0xfc) | 0x02;
  return octets.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function tapSteps(input: PlanInput, bridge?: string): Step[] {
  const tap = tapDeviceName(input.podInterface.name, input.network);
  const model = input.iface.model ?? '';
  const virtio = model === '' || model === 'virtio';
  return [
    {
      kind: 'add-tap',
      name: tap,
      owner: TAP_OWNER,
      multiQueue: virtio && input.queues > 1,
      mtu: input.podInterface.mtu,
    },
    ...(bridge === undefined ? [] : [{ kind: 'enslave', link: tap, bridge } as const]),
    { kind: 'set-up', link: tap },
  ];
}

const FORWARDING_SYSCTL: Readonly<Record<IpFamily, string>> = {
  ip: 'ipv4/ip_forward',
  ip6: 'ipv6/conf/all/forwarding',
};

interface FamilySubnet extends VmSubnet {
  readonly family: IpFamily;
}

/** The VM subnet of each family the pod interface has a global unicast address of (with KubeVirt's default). */
function masqueradeSubnets(input: PlanInput): FamilySubnet[] {
  const { podInterface: pod, network } = input;
  const at = `network ${JSON.stringify(network.name)} pod`;
  const v4 = anyGlobalUnicast(pod.ipv4)
    ? [{ family: 'ip', ...vmSubnet('ip', network.pod?.vmNetworkCIDR ?? '', `${at}.vmNetworkCIDR`) } as const]
    : [];
  const v6 = anyGlobalUnicast(pod.ipv6)
    ? [
        {
          family: 'ip6',
          ...vmSubnet('ip6', network.pod?.vmIPv6NetworkCIDR ?? '', `${at}.vmIPv6NetworkCIDR`),
        } as const,
      ]
    : [];
  return [...v4, ...v6];
}

function masqueradeSteps(input: PlanInput): Step[] {
  const pod = input.podInterface;
  const bridge = bridgeName(pod.name);
  const subnets = masqueradeSubnets(input);
  const nat = ({ family, gateway, guest }: FamilySubnet): Step => ({
    kind: 'nat',
    family,
    script: masqueradeNatScript({
      family,
      podInterface: pod.name,
      bridge,
      gateway: gateway.address,
      guest,
      ports: input.iface.ports ?? [],
      interfaceIndex: input.interfaceIndex,
    }),
  });
  return [
    { kind: 'add-bridge', name: bridge, mac: MASQUERADE_BRIDGE_MAC, mtu: pod.mtu },
    ...subnets.map((s): Step => ({ kind: 'add-address', link: bridge, address: s.gateway })),
    { kind: 'set-up', link: bridge },
    // The output DNAT of 127.0.0.1 to the guest sends a packet with a loopback source out of the bridge.
    ...subnets
      .filter((s) => s.family === 'ip')
      .map((): Step => ({ kind: 'sysctl', key: `ipv4/conf/${bridge}/route_localnet`, value: '1' })),
    ...tapSteps(input, bridge),
    ...subnets.map((s): Step => ({ kind: 'sysctl', key: FORWARDING_SYSCTL[s.family], value: '1' })),
    ...subnets.map(nat),
  ];
}

/**
 * What the guest of a bridge binding interface is leased: the pod interface's first global unicast IPv4
 * address, gateway and routes, read before the setup takes them away (the launcher reads them when it starts).
 */
export function bridgeDhcp(input: Pick<PlanInput, 'podInterface' | 'iface'>): BridgeDhcp {
  const pod = input.podInterface;
  const mac =
    input.iface.macAddress !== undefined && input.iface.macAddress !== '' ? input.iface.macAddress : pod.mac;
  const address = pod.ipv4.find((a) => isGlobalUnicast(a.address));
  if (address === undefined) return { mac, mtu: pod.mtu, routes: [] };
  const gateway = (pod.routes.find((r) => r.destination === '0.0.0.0/0') ?? pod.routes.find((r) => r.gateway))
    ?.gateway;
  const routes = pod.routes.filter((r) => r.destination !== networkOf(address));
  return { address, mac, mtu: pod.mtu, ...(gateway !== undefined && { gateway }), routes };
}

function bridgeBindingSteps(input: PlanInput, bridgeMac: string): Step[] {
  const pod = input.podInterface;
  const bridge = bridgeName(pod.name);
  const nic = bridgedPodInterfaceName(pod.name);
  const dhcpAddress = { address: bridgeServerIp(input.interfaceIndex), prefixLength: 32 };
  const dhcpClient = pod.ipv4.find((a) => isGlobalUnicast(a.address));
  const ipv4 = dhcpClient !== undefined;
  return [
    { kind: 'add-bridge', name: bridge, mac: bridgeMac },
    ...(ipv4 ? [{ kind: 'add-address', link: bridge, address: dhcpAddress } as const] : []),
    { kind: 'set-up', link: bridge },
    { kind: 'set-down', link: pod.name },
    { kind: 'rename', link: pod.name, to: nic },
    { kind: 'set-mac', link: nic, mac: bridgeMac },
    { kind: 'enslave', link: nic, bridge },
    { kind: 'flush-addresses', link: nic },
    { kind: 'set-up', link: nic },
    { kind: 'learning-off', link: nic },
    ...tapSteps(input, bridge),
    // The pod interface's name, MAC and addresses stay in the namespace on a dummy link that is never up.
    {
      kind: 'add-dummy',
      name: pod.name,
      mac: pod.mac,
      mtu: pod.mtu,
      linkType: input.placeholderLinkType ?? 'dummy',
    },
    ...[...pod.ipv4, ...pod.ipv6].map((address): Step => ({ kind: 'add-address', link: pod.name, address })),
    // The launcher's DHCP replies go to the client subnet's directed broadcast (lib/network/dhcp reply.ts): out
    // of the bridge as an Ethernet broadcast, since the dummy that holds the subnet's address is never up.
    ...(dhcpClient !== undefined && dhcpClient.prefixLength < 31
      ? [{ kind: 'broadcast-route', address: broadcastOf(dhcpClient), link: bridge } as const]
      : []),
    // The Pod answers ARP only for addresses of the interface asked: the guest owns the pod IP on the wire.
    ...(ipv4 ? [{ kind: 'sysctl', key: 'ipv4/conf/all/arp_ignore', value: '1' } as const] : []),
    // No IPv6 on the bridge port either (not even the link-local address its coming up gave it).
    { kind: 'sysctl', key: `ipv6/conf/${nic}/disable_ipv6`, value: '1' },
  ];
}

/**
 * The plan of one masquerade or bridge binding interface, or of a binding plugin's interface attached by tap
 * (netpod.go for `domainAttachmentType: tap`: the tap alone, up, with the pod interface's MTU; the plugin's CNI
 * does the rest); any other binding is KV_ERR_INVALID.
 */
export function planPodNetwork(input: PlanInput): Plan {
  if (input.iface.masquerade !== undefined) return { steps: masqueradeSteps(input) };
  if (input.iface.binding !== undefined) return { steps: tapSteps(input) };
  if (input.iface.bridge === undefined) {
    throw new KvError(
      'KV_ERR_INVALID',
      `interface ${input.iface.name} has neither the masquerade nor the bridge binding`,
    );
  }
  if (input.bridgeMac === undefined) {
    throw new KvError(
      'KV_ERR_INTERNAL',
      `interface ${input.iface.name}: the bridge binding needs a bridge MAC`,
    );
  }
  return { steps: bridgeBindingSteps(input, input.bridgeMac), dhcp: bridgeDhcp(input) };
}
