/**
 * The router advertisements of a masquerade bridge whose Pod has IPv6, as radvd's configuration. KubeVirt v1.6.2
 * sends none: its DHCPv6 server leases the guest a /128, which gives the guest neither the VM subnet on its link
 * nor a default route, so the guest cannot even answer a connection NATed to it (KubeVirt's guides set the
 * address and route by cloud-init). Here the bridge advertises itself as the default router, the VM subnet as
 * on-link (not for SLAAC: the address comes from DHCPv6, the Managed and Other flags say so) and the Pod
 * interface's MTU. radvd answers a guest's router solicitation at once and repeats the advertisement every
 * 30 to 120 s.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { Network } from '../../kubevirt/index.ts';
import { networkOf, vmSubnet } from './addresses.ts';

export interface AdvertisedBridge {
  /** The masquerade bridge (`k6t-eth0`). */
  readonly bridge: string;
  /** The VMI network, for its vmIPv6NetworkCIDR. */
  readonly network: Network;
  /** Its index in spec.networks, for the field path of a bad CIDR. */
  readonly networkIndex: number;
  /** The Pod interface's MTU. */
  readonly mtu: number;
}

const LINK_NAME = /^[A-Za-z0-9_.-]{1,15}$/;

function interfaceBlock(b: AdvertisedBridge): string {
  if (!LINK_NAME.test(b.bridge))
    throw new KvError('KV_ERR_INVALID', `${JSON.stringify(b.bridge)} is not a link name`);
  if (!Number.isInteger(b.mtu) || b.mtu < 1280)
    throw new KvError('KV_ERR_INVALID', `MTU ${b.mtu} is below IPv6's 1280`);
  const field = `spec.networks[${b.networkIndex}].pod.vmIPv6NetworkCIDR`;
  const { gateway } = vmSubnet('ip6', b.network.pod?.vmIPv6NetworkCIDR ?? '', field);
  return [
    `interface ${b.bridge}`,
    '{',
    '\tAdvSendAdvert on;',
    '\tMinRtrAdvInterval 30;',
    '\tMaxRtrAdvInterval 120;',
    '\tAdvDefaultLifetime 1800;',
    '\tAdvManagedFlag on;',
    '\tAdvOtherConfigFlag on;',
    `\tAdvLinkMTU ${b.mtu};`,
    `\tprefix ${networkOf(gateway)}`,
    '\t{',
    '\t\tAdvOnLink on;',
    '\t\tAdvAutonomous off;',
    '\t};',
    '};',
    '',
  ].join('\n');
}

/** radvd's configuration for the bridges; '' for none. */
export function radvdConfig(bridges: readonly AdvertisedBridge[]): string {
  return bridges.map(interfaceBlock).join('');
}
