/**
 * The names of a VMI's interfaces inside the launcher Pod (kubevirt pkg/network/namescheme, tag v1.6.2): the
 * default network (the pod network or the default Multus one) is the Pod's `eth0`; each secondary Multus
 * network is `pod` and the first 11 hex digits of the SHA-256 of its name (the hashed scheme), or `net1`,
 * `net2`, … in network order for Pods created by KubeVirt before the hashed names (the ordinal scheme). 11
 * digits leave room for the `-nic` suffix of the bridge binding within Linux's 15 characters.
 */
import { createHash } from 'node:crypto';
import { defaultNetwork, isSecondaryMultusNetwork } from '../kubevirt/index.ts';
import type { Network, VirtualMachineInstanceNetworkInterface } from '../kubevirt/index.ts';

const PRIMARY_POD_INTERFACE = 'eth0';
export const HASHED_INTERFACE_PREFIX = 'pod';
const HASH_DIGITS = 11;
const ORDINAL_SECONDARY = /^net\d+$/;

/** namescheme.GenerateHashedInterfaceName. */
export function hashedPodInterfaceName(networkName: string): string {
  const digest = createHash('sha256').update(networkName, 'utf8').digest('hex');
  return HASHED_INTERFACE_PREFIX + digest.slice(0, HASH_DIGITS);
}

/** namescheme.OrdinalSecondaryInterfaceName: `net<n>` (eth0 is not ordinal). */
export function isOrdinalSecondaryName(podInterfaceName: string): boolean {
  return ORDINAL_SECONDARY.test(podInterfaceName);
}

function nameScheme(
  networks: readonly Network[],
  secondary: (net: Network, n: number) => string,
): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const primary = defaultNetwork(networks);
  let n = 0;
  for (const net of networks) {
    if (isSecondaryMultusNetwork(net)) names.set(net.name, secondary(net, ++n));
    else if (net === primary) names.set(net.name, PRIMARY_POD_INTERFACE);
  }
  return names;
}

/** namescheme.CreateHashedNetworkNameScheme: network name → pod interface name. */
export function hashedNameScheme(networks: readonly Network[]): ReadonlyMap<string, string> {
  return nameScheme(networks, (net) => hashedPodInterfaceName(net.name));
}

/** namescheme.CreateOrdinalNetworkNameScheme: network name → pod interface name. */
export function ordinalNameScheme(networks: readonly Network[]): ReadonlyMap<string, string> {
  return nameScheme(networks, (_net, n) => `net${String(n)}`);
}

/**
 * namescheme.CreateFromNetworkStatuses: the ordinal scheme when any interface the Pod reports (its Multus
 * network-status) has an ordinal name, else the hashed one.
 */
export function nameSchemeFromPod(
  networks: readonly Network[],
  podInterfaceNames: readonly string[],
): ReadonlyMap<string, string> {
  return podInterfaceNames.some(isOrdinalSecondaryName)
    ? ordinalNameScheme(networks)
    : hashedNameScheme(networks);
}

/**
 * namescheme.HashedPodInterfaceName: a secondary network's hashed name; for the others the pod interface the
 * VMI status reports for that network, else eth0.
 */
export function podInterfaceName(
  network: Network,
  statuses: readonly VirtualMachineInstanceNetworkInterface[],
): string {
  if (isSecondaryMultusNetwork(network)) return hashedPodInterfaceName(network.name);
  const reported = statuses.find((s) => s.name === network.name)?.podInterfaceName ?? '';
  return reported !== '' ? reported : PRIMARY_POD_INTERFACE;
}
