/**
 * What the DHCPv6 server hands the guest of a masquerade interface (kubevirt pkg/network/dhcp masquerade.go
 * MasqueradeConfigGenerator for IPv6 and the arguments of serverv6 SingleClientDHCPv6Server, tag v1.6.2),
 * and the pure steps that fill it in: the guest's address in the VM IPv6 network, the server's DUID from
 * the bridge's MAC and the IPv6 nameservers of the Pod's resolv.conf.
 */
import { isIPv6 } from 'node:net';
import type { Network } from '../../kubevirt/index.ts';
import { KUBEVIRT_LEASE_SECONDS } from '../dhcp/config.ts';
import { vmSubnet } from '../setup/addresses.ts';
import { linkLayerDuid } from './options.ts';

export interface Dhcpv6Config {
  /** The one address offered, in IA_NA, to whoever asks on the server's link. */
  readonly address: string;
  /** Seconds; at most validLifetime. */
  readonly preferredLifetime: number;
  readonly validLifetime: number;
  /** IPv6 DNS servers (option 23); none is sent when empty. */
  readonly dns: readonly string[];
  /** The domain search list (option 24); none is sent when empty. */
  readonly searchDomains: readonly string[];
  /** The Server Identifier's DUID. */
  readonly serverDuid: Uint8Array;
}

/**
 * The IPv6 `nameserver` lines of a resolv.conf, in order (dns.ParseNameservers after v1.6: a line of exactly
 * the keyword and one address; a scoped address such as `fe80::1%eth0` is no literal Go parses and is skipped).
 */
export function ipv6Nameservers(resolvConf: string): string[] {
  return resolvConf.split(/\r?\n/).flatMap((line) => {
    // The keyword starts the line (resolv.conf(5)); trailing blanks are no field.
    const fields = line.replace(/[ \t]+$/, '').split(/[ \t]+/);
    const [keyword, address = ''] = fields;
    const usable =
      keyword === 'nameserver' && fields.length === 2 && isIPv6(address) && !address.includes('%');
    return usable ? [address] : [];
  });
}

export interface MasqueradeInput {
  readonly network: Network;
  /** The network's index in spec.networks. */
  readonly networkIndex: number;
  /** The MAC of the bridge the server listens on (KubeVirt's static masquerade bridge MAC). */
  readonly serverMac: string;
  /** The text of the Pod's /etc/resolv.conf. */
  readonly resolvConf: string;
}

/**
 * The guest gets the second address of spec.networks[index].pod.vmIPv6NetworkCIDR (fd10:0:2::/120 when
 * empty, so fd10:0:2::2) for KubeVirt's 999 days, preferred and valid; the server is known by the DUID-LL of
 * its bridge. DNS servers are the Pod's IPv6 nameservers, which KubeVirt sends from v1.7 on (v1.6.2 sends
 * none); the search list stays empty, as KubeVirt sends none over DHCPv6 (the DHCPv4 server carries it).
 */
export function masqueradeDhcpv6Config(input: MasqueradeInput): Dhcpv6Config {
  const field = `spec.networks[${input.networkIndex}].pod.vmIPv6NetworkCIDR`;
  const { guest } = vmSubnet('ip6', input.network.pod?.vmIPv6NetworkCIDR ?? '', field);
  return {
    address: guest,
    preferredLifetime: KUBEVIRT_LEASE_SECONDS,
    validLifetime: KUBEVIRT_LEASE_SECONDS,
    dns: ipv6Nameservers(input.resolvConf),
    searchDomains: [],
    serverDuid: linkLayerDuid(input.serverMac),
  };
}
