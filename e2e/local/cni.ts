/**
 * The node's CNI network: Debian's bridge plugin on our bridge, with no gateway on it (isGateway false:
 * the plugin does not take an address or make routes), no masquerade and host-local addresses from the
 * private ranges only the bridge uses, IPv4 and IPv6 (dual-stack Pods, for VMs on the Pod network with IPv6). A
 * Pod has no default route: it reaches the bridge's subnets, the Service range through the node's IPv4
 * address (kube-proxy translates it there; the host forwards nothing) and the other node's Pod range through the
 * second node, which forwards in its own network namespace (on the second node, the bridge is that namespace's
 * own and its gateway is the namespace's address on it). The portmap plugin is not chained: hostPorts are not
 * served.
 */
import { FIRST_NODE, NETWORK, peerRoute, type NodeSpec } from './layout.ts';

const CNI_NETWORK = 'kvts';
export const CNI_BIN_DIR = '/usr/lib/cni';

export function cniConflist(ipamDataDir: string, node: NodeSpec = FIRST_NODE): string {
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
                subnet: node.podCidr,
                rangeStart: node.rangeStart,
                rangeEnd: node.rangeEnd,
              },
            ],
            [{ subnet: node.podCidr6 }],
          ],
          routes: [{ dst: NETWORK.serviceCidr, gw: node.gateway }, peerRoute(node)],
        },
      },
      { type: 'loopback' },
    ],
  };
  return JSON.stringify(conf, null, 2) + '\n';
}
