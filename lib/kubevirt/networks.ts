/**
 * Readings of a VMI's networks (kubevirt pkg/network/vmispec network.go, tag v1.6.2): a secondary network is a
 * Multus one that is not the default; the default network is the first that is not secondary (the pod
 * network, or the default Multus network).
 */
import type { Network } from './v1/network.ts';

export function isSecondaryMultusNetwork(net: Network): boolean {
  return net.multus !== undefined && net.multus.default !== true;
}

/** vmispec.LookUpDefaultNetwork. */
export function defaultNetwork(nets: readonly Network[]): Network | undefined {
  return nets.find((n) => !isSecondaryMultusNetwork(n));
}
