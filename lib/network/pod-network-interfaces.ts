/**
 * Which interfaces of a VMI the handler connects inside its launcher Pod's network namespace, and the launcher
 * serves DHCP to (kubevirt pkg/network/setup netpod.go: those with a masquerade or bridge binding on the Pod
 * network, and the taps of binding plugins attached by tap), and what each needs of the plan: its index, its network and that network's index, the Pod interface it binds to and
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

/** A binding plugin of the KubeVirt resource (`network.binding.<name>`), as far as the domain and a migration care. */
export interface BindingPlugin {
  /** `tap`, `managedTap`, or absent (the plugin's own sidecar attaches the domain). */
  readonly domainAttachmentType?: string;
  /** The plugin has a `migration` section: a VMI whose Pod network interface uses it can migrate. */
  readonly migration?: boolean;
}

/**
 * domainspec.DomainAttachmentByInterfaceName: `tap` for each masquerade and bridge interface and for each
 * interface of a binding plugin attached by `tap` or `managedTap` (the domain opens a tap either way).
 */
export function domainAttachmentByInterfaceName(
  interfaces: readonly Interface[],
  plugins: Readonly<Record<string, BindingPlugin>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const iface of interfaces) {
    if (iface.masquerade !== undefined || iface.bridge !== undefined) out[iface.name] = 'tap';
    else if (iface.binding !== undefined) {
      const type = Object.hasOwn(plugins, iface.binding.name)
        ? plugins[iface.binding.name]?.domainAttachmentType
        : undefined;
      if (type !== undefined && type !== '') out[iface.name] = type === 'managedTap' ? 'tap' : type;
    }
  }
  return out;
}

/** Whether the handler makes the interface's tap: a masquerade or bridge one on the Pod network, or a `tap` plugin's. */
function handlerMakes(
  iface: Interface,
  network: Network,
  plugins: Readonly<Record<string, BindingPlugin>>,
): boolean {
  if (iface.masquerade !== undefined || iface.bridge !== undefined) return network.pod !== undefined;
  const name = iface.binding?.name;
  return name !== undefined && Object.hasOwn(plugins, name) && plugins[name]?.domainAttachmentType === 'tap';
}

/**
 * The present interfaces whose Pod side the handler sets up, in spec order: masquerade and bridge ones on the
 * Pod network, and those of binding plugins attached by `tap` (on any network).
 */
export function podNetworkInterfaces(
  vmi: VirtualMachineInstance,
  plugins: Readonly<Record<string, BindingPlugin>> = {},
): PodNetworkInterface[] {
  const networks = vmi.spec.networks ?? [];
  const statuses = vmi.status?.interfaces ?? [];
  return (vmi.spec.domain.devices.interfaces ?? []).flatMap((iface, interfaceIndex) => {
    if (iface.state === 'absent') return [];
    const networkIndex = networks.findIndex((n) => n.name === iface.name);
    const network = networks[networkIndex];
    if (network === undefined || !handlerMakes(iface, network, plugins)) return [];
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
