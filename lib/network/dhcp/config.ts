/**
 * What the DHCPv4 server hands one guest interface (kubevirt pkg/network/cache DHCPConfig and the arguments
 * of pkg/network/dhcp/server SingleClientDHCPServer, tag v1.6.2), and the pure steps that fill it in: the
 * DNS servers and search domains of the Pod's resolv.conf (pkg/network/dns), the subdomain's search domain,
 * and the masquerade binding's guest and gateway addresses (pkg/network/link address.go).
 */
import { isIPv4 } from 'node:net';
import type { Interface, Network } from '../../kubevirt/index.ts';
import { broadcastOf, vmSubnet } from '../setup/addresses.ts';
import { bridgeServerIp, type BridgeDhcp } from '../setup/plan.ts';
import { subnetAddress } from './ipv4.ts';
import type { ClasslessRoute } from './options.ts';

/** A VMI interface's spec.domain.devices.interfaces[i].dhcpOptions. */
export type CustomDhcpOptions = NonNullable<Interface['dhcpOptions']>;

export interface DhcpConfig {
  /** The one client answered: the guest interface's MAC. */
  readonly clientMac: string;
  readonly clientIp: string;
  readonly prefixLength: number;
  /** The router option; none is sent without it. */
  readonly gateway?: string;
  /** The server identifier: the address the launcher holds on the guest's link. */
  readonly serverIp: string;
  /**
   * Where a reply that must be broadcast goes (reply.ts): an address the launcher's routing sends out of the
   * guest's link as an Ethernet broadcast. For masquerade, the directed broadcast of the VM network, which
   * the bridge's own address makes local; for the bridge binding, whose bridge holds only a /32, the
   * launcher routes the client subnet's directed broadcast onto the bridge.
   */
  readonly broadcastAddress: string;
  /**
   * Every reply goes to broadcastAddress, none to the client's address: the bridge binding's guest holds the
   * Pod's address, which is also local to the launcher's namespace.
   */
  readonly broadcastOnly?: boolean;
  readonly mtu: number;
  /** IPv4 DNS servers. */
  readonly dns: readonly string[];
  readonly searchDomains: readonly string[];
  /** The Pod's hostname, which is the VMI's. */
  readonly hostname: string;
  /** The VMI's spec.subdomain. */
  readonly subdomain?: string;
  readonly routes?: readonly ClasslessRoute[];
  readonly leaseSeconds: number;
  readonly dhcpOptions?: CustomDhcpOptions;
}

/** KubeVirt's "infinite" lease: 999 days. */
export const KUBEVIRT_LEASE_SECONDS = 999 * 24 * 60 * 60;

/** What a Pod without nameservers or search domains in its resolv.conf gets (dns.ParseNameservers, …). */
const DEFAULT_DNS = '8.8.8.8';
const DEFAULT_SEARCH_DOMAIN = 'cluster.local';

/**
 * dns.ParseNameservers and dns.ParseSearchDomains: the IPv4 nameservers in file order (the IPv6 ones are for
 * DHCPv6), else 8.8.8.8; the names of every `search` line, lower-cased, else cluster.local. Like KubeVirt,
 * no count is capped: the kubelet already writes at most three nameservers and its own search limit. Unlike
 * KubeVirt, the root domain `.` is skipped: it means "no search domain", and it is what the kubelet writes
 * for a Pod when neither the cluster nor the node gives one (`search .`), which KubeVirt's DHCP server
 * refuses as an invalid search domain, leaving the guest without an address.
 */
export function parseResolvConf(text: string): { dns: string[]; searchDomains: string[] } {
  const dns: string[] = [];
  const searchDomains: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    // The keyword starts the line (resolv.conf(5)): a line that opens with a blank has keyword ''.
    const [keyword, ...values] = line.split(/[ \t]+/);
    const first = values[0] ?? '';
    if (keyword === 'nameserver' && isIPv4(first)) dns.push(first);
    if (keyword === 'search')
      searchDomains.push(...values.filter((v) => v !== '' && v !== '.').map((v) => v.toLowerCase()));
  }
  return {
    dns: dns.length > 0 ? dns : [DEFAULT_DNS],
    searchDomains: searchDomains.length > 0 ? searchDomains : [DEFAULT_SEARCH_DOMAIN],
  };
}

/** dns.GetDomainName: the longest search domain (the first of equal length), or undefined. */
export function domainName(searchDomains: readonly string[]): string | undefined {
  let longest: string | undefined;
  for (const d of searchDomains) if (d.length > (longest?.length ?? 0)) longest = d;
  return longest;
}

/**
 * The search domains the server sends (network driver StartDHCP with dns.DomainNameWithSubdomain): when the
 * VMI has a subdomain, `<subdomain>.<longest service domain>` goes first, unless that domain already starts
 * with the subdomain. The kubelet leaves it out of resolv.conf for old glibc's six-domain limit.
 */
export function searchDomainsWithSubdomain(searchDomains: readonly string[], subdomain?: string): string[] {
  const service = domainName(searchDomains.filter((d) => d.includes('.svc.')));
  if (subdomain === undefined || subdomain === '' || service === undefined) return [...searchDomains];
  if (service.startsWith(`${subdomain}.`)) return [...searchDomains];
  return [`${subdomain}.${service}`, ...searchDomains];
}

/** The masquerade binding's addresses on the guest's link. */
export interface MasqueradeAddresses {
  /** The launcher's address on the bridge: the guest's gateway and DHCP server. */
  readonly gateway: string;
  readonly guest: string;
  readonly prefixLength: number;
}

/**
 * link.GenerateMasqueradeGatewayAndVmIPAddrs for IPv4 (the setup's vmSubnet): the first address after the
 * network is the gateway, the second the guest, in spec.networks[index].pod.vmNetworkCIDR or 10.0.2.0/24.
 */
export function masqueradeAddresses(network: Network, index: number): MasqueradeAddresses {
  const field = `spec.networks[${index}].pod.vmNetworkCIDR`;
  const { gateway, guest } = vmSubnet('ip', network.pod?.vmNetworkCIDR ?? '', field);
  return { gateway: gateway.address, guest, prefixLength: gateway.prefixLength };
}

export interface MasqueradeInput {
  readonly network: Network;
  /** The network's index in spec.networks. */
  readonly networkIndex: number;
  readonly clientMac: string;
  /** The Pod interface's MTU. */
  readonly mtu: number;
  /** The text of the Pod's /etc/resolv.conf. */
  readonly resolvConf: string;
  readonly hostname: string;
  readonly subdomain?: string;
  readonly dhcpOptions?: CustomDhcpOptions;
}

/**
 * dhcp.MasqueradeConfigGenerator for IPv4: the guest gets the second address of the VM network, the gateway
 * is the first and serves DHCP, replies to be broadcast go to the VM network's directed broadcast address.
 */
export function masqueradeDhcpConfig(input: MasqueradeInput): DhcpConfig {
  const { gateway, guest, prefixLength } = masqueradeAddresses(input.network, input.networkIndex);
  const { dns, searchDomains } = parseResolvConf(input.resolvConf);
  return {
    clientMac: input.clientMac,
    clientIp: guest,
    prefixLength,
    gateway,
    serverIp: gateway,
    broadcastAddress: subnetAddress({ address: guest, prefixLength, field: 'clientIp' }, 'broadcast'),
    mtu: input.mtu,
    dns,
    searchDomains,
    hostname: input.hostname,
    leaseSeconds: KUBEVIRT_LEASE_SECONDS,
    ...(input.subdomain !== undefined && { subdomain: input.subdomain }),
    ...(input.dhcpOptions !== undefined && { dhcpOptions: input.dhcpOptions }),
  };
}

export interface BridgeInput {
  /** What the pod interface had (lib/network/setup/plan.ts bridgeDhcp); its address must be there. */
  readonly lease: BridgeDhcp & { readonly address: NonNullable<BridgeDhcp['address']> };
  /** The index of the interface in spec.domain.devices.interfaces. */
  readonly interfaceIndex: number;
  /** The guest interface's MAC in the domain. */
  readonly clientMac: string;
  readonly resolvConf: string;
  readonly hostname: string;
  readonly subdomain?: string;
  readonly dhcpOptions?: CustomDhcpOptions;
}

/**
 * dhcp.BridgeConfigGenerator: the guest gets the Pod's address, gateway and routes (the default one last, as
 * classless routes); the server answers from the bridge's link-local address, and replies to be broadcast go
 * to the Pod subnet's directed broadcast, which the setup routes out of the bridge (plan.ts).
 */
export function bridgeDhcpConfig(input: BridgeInput): DhcpConfig {
  const { lease } = input;
  const { dns, searchDomains } = parseResolvConf(input.resolvConf);
  return {
    clientMac: input.clientMac,
    clientIp: lease.address.address,
    prefixLength: lease.address.prefixLength,
    ...(lease.gateway !== undefined && { gateway: lease.gateway }),
    serverIp: bridgeServerIp(input.interfaceIndex),
    broadcastAddress: broadcastOf(lease.address),
    broadcastOnly: true,
    mtu: lease.mtu,
    dns,
    searchDomains,
    hostname: input.hostname,
    routes: lease.routes,
    leaseSeconds: KUBEVIRT_LEASE_SECONDS,
    ...(input.subdomain !== undefined && { subdomain: input.subdomain }),
    ...(input.dhcpOptions !== undefined && { dhcpOptions: input.dhcpOptions }),
  };
}
