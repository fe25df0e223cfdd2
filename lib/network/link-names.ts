/**
 * The devices the launcher makes for a pod interface (kubevirt pkg/network/link names.go, tag v1.6.2): the tap
 * device is `tap0` for the default network and `tap` with the pod interface's name after its first three
 * characters for a secondary one (`pod16477688c0e` → `tap16477688c0e`, `net1` → `tap1`); the bridge is `k6t-`
 * and the pod interface's name without the hashed prefix; the bridge binding renames the pod interface to that
 * name and `-nic`. Every name fits Linux's 15 characters for the pod interfaces the name schemes give.
 */
import { isSecondaryMultusNetwork } from '../kubevirt/index.ts';
import type { Network } from '../kubevirt/index.ts';
import { HASHED_INTERFACE_PREFIX } from './namescheme.ts';

/** Linux's interface name limit (IFNAMSIZ less the terminating NUL). */
export const MAX_INTERFACE_NAME_LENGTH = 15;
const PRIMARY_TAP = 'tap0';

const withoutHashedPrefix = (name: string): string =>
  name.startsWith(HASHED_INTERFACE_PREFIX) ? name.slice(HASHED_INTERFACE_PREFIX.length) : name;

/** link.GenerateTapDeviceName. */
export function tapDeviceName(podInterfaceName: string, network: Network): string {
  return isSecondaryMultusNetwork(network) ? `tap${podInterfaceName.slice(3)}` : PRIMARY_TAP;
}

/** link.GenerateBridgeName. */
export function bridgeName(podInterfaceName: string): string {
  return `k6t-${withoutHashedPrefix(podInterfaceName)}`;
}

/** link.GenerateNewBridgedVmiInterfaceName: the name the bridge binding gives the Pod's own interface. */
export function bridgedPodInterfaceName(podInterfaceName: string): string {
  return `${withoutHashedPrefix(podInterfaceName)}-nic`;
}
