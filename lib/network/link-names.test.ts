import { describe, expect, it } from '@jest/globals';
import type { Network } from '../kubevirt/index.ts';
import {
  bridgedPodInterfaceName,
  bridgeName,
  MAX_INTERFACE_NAME_LENGTH,
  tapDeviceName,
} from './link-names.ts';

const NETWORKS = {
  pod: { name: 'default', pod: {} },
  'default Multus': { name: 'default', multus: { networkName: 'ns/flannel', default: true } },
  secondary: { name: 'blue', multus: { networkName: 'ns/blue' } },
} satisfies Record<string, Network>;

describe('the devices of a pod interface', () => {
  // renamed: the bridge binding's new name for the pod interface.
  it.each<{ iface: string; network: keyof typeof NETWORKS; tap: string; bridge: string; renamed: string }>([
    { iface: 'eth0', network: 'pod', tap: 'tap0', bridge: 'k6t-eth0', renamed: 'eth0-nic' },
    { iface: 'eth0', network: 'default Multus', tap: 'tap0', bridge: 'k6t-eth0', renamed: 'eth0-nic' },
    {
      iface: 'pod16477688c0e',
      network: 'secondary',
      tap: 'tap16477688c0e',
      bridge: 'k6t-16477688c0e',
      renamed: '16477688c0e-nic',
    },
    { iface: 'net1', network: 'secondary', tap: 'tap1', bridge: 'k6t-net1', renamed: 'net1-nic' },
    { iface: 'net12', network: 'secondary', tap: 'tap12', bridge: 'k6t-net12', renamed: 'net12-nic' },
  ])(
    '$iface on the $network network: $tap, $bridge, $renamed',
    ({ iface, network, tap, bridge, renamed }) => {
      expect(tapDeviceName(iface, NETWORKS[network])).toBe(tap);
      expect(bridgeName(iface)).toBe(bridge);
      expect(bridgedPodInterfaceName(iface)).toBe(renamed);
      for (const name of [tap, bridge, renamed])
        expect(name.length).toBeLessThanOrEqual(MAX_INTERFACE_NAME_LENGTH);
    },
  );
});
