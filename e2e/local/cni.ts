/**
 * The node's CNI network: Debian's bridge plugin on our bridge, with no gateway on it (isGateway false:
 * the plugin does not take an address or make routes), no masquerade and host-local addresses from the
 * private ranges only the bridge uses, IPv4 and IPv6 (dual-stack Pods, for VMs on the Pod network with IPv6). A
 * Pod has no default route: it reaches the bridge's subnets, and the Service range through the node's IPv4
 * address (kube-proxy translates it there; the host forwards nothing). The portmap plugin
 * is not chained: hostPorts are not served.
 */
import { NETWORK } from './layout.ts';

const CNI_NETWORK = 'kvts';
export const CNI_BIN_DIR = '/usr/lib/cni';

export function cniConflist(ipamDataDir: string): string {
  const conf = {
    cniVersion: '1.0.0',
    name: CNI_NETWORK,
    plugins: [
      {
        type: 'bridge',
        bridge: NETWORK.bridge,
        isGateway: false,
        isDefaultGateway: false,
        ipMasq: false,
        hairpinMode: true,
        promiscMode: false,
        ipam: {
          type: 'host-local',
          dataDir: ipamDataDir,
          ranges: [
            [
              {
                subnet: NETWORK.podCidr,
                rangeStart: NETWORK.rangeStart,
                rangeEnd: NETWORK.rangeEnd,
              },
            ],
            [{ subnet: NETWORK.podCidr6 }],
          ],
          routes: [{ dst: NETWORK.serviceCidr, gw: NETWORK.nodeIp }],
        },
      },
      { type: 'loopback' },
    ],
  };
  return JSON.stringify(conf, null, 2) + '\n';
}
