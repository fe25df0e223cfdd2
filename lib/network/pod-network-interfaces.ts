/**
 * Which interfaces of a VMI the handler connects inside its launcher Pod's network namespace, and the launcher
 * serves DHCP to (kubevirt pkg/network/setup netpod.go: those with a masquerade or bridge binding on the Pod
 * network), and what each needs of the plan: its index, its network and that network's index, the Pod interface it binds to and
 * the tap's queue count (one per vCPU with networkInterfaceMultiqueue on a virtio model). Pure.
 */
import type { Interface, Network, VirtualMachineInstance } from '../kubevirt/index.ts';
import { vcpusOf } from '../kubevirt/vmi-state.ts';
import { podInterfaceName } from './namescheme.ts';

export interface PodNetworkInterface {
  readonly iface: Interface;
  readonly interfaceIndex: number;
  readonly network: Network;
  readonly networkIndex: number;
  readonly podInterfaceName: string;
  readonly queues: number;
}

function queuesOf(vmi: VirtualMachineInstance, iface: Interface): number {
  const virtio = (iface.model ?? '') === '' || iface.model === 'virtio';
  if (vmi.spec.domain.devices.networkInterfaceMultiqueue !== true || !virtio) return 1;
  return Math.max(1, vcpusOf(vmi.spec.domain.cpu));
}

/** The present masquerade and bridge interfaces of the VMI on its Pod network, in spec order. */
export function podNetworkInterfaces(vmi: VirtualMachineInstance): PodNetworkInterface[] {
  const networks = vmi.spec.networks ?? [];
  const statuses = vmi.status?.interfaces ?? [];
  return (vmi.spec.domain.devices.interfaces ?? []).flatMap((iface, interfaceIndex) => {
    if (iface.state === 'absent') return [];
    if (iface.masquerade === undefined && iface.bridge === undefined) return [];
    const networkIndex = networks.findIndex((n) => n.name === iface.name);
    const network = networks[networkIndex];
    if (network?.pod === undefined) return [];
    return [
      {
        iface,
        interfaceIndex,
        network,
        networkIndex,
        podInterfaceName: podInterfaceName(network, statuses),
        queues: queuesOf(vmi, iface),
      },
    ];
  });
}
