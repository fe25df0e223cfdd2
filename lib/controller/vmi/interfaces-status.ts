/**
 * The controller's part of status.interfaces, from the launcher Pod's Multus network-status (kubevirt
 * pkg/network/controllers/vmi.go UpdateVMIStatus, tag v1.6.2); the handler reports the rest from the domain
 * and the guest agent (lib/handler/vmi/interfaces-status.ts), and each side keeps what the other wrote:
 * - the default network's entry: the one reported so far (or a new one with just the name) with the Pod
 *   interface Multus names for the default network, else `eth0`, as podInterfaceName;
 * - each secondary Multus network: its Pod interface by the name scheme the Pod uses (ordinal when Multus
 *   reports any `net<n>`, else hashed) as podInterfaceName; `multus-status` added to infoSource while Multus
 *   reports that interface (a new entry then has just the name), removed once it does not (an entry only
 *   Multus reported then stays without a source; none is made for an interface nobody reported);
 * - every entry of a name that is not a network of the spec (the guest's own interfaces, by the guest
 *   agent) as it is.
 * Nothing else of an entry (mac, addresses, interfaceName, ...) is touched. The result is compared with the
 * current entries by name, in any order, as KubeVirt's prepareVMIPatch does: the two writers order the list
 * differently, and a write per order would never end. Pure.
 */
import { defaultNetwork, isSecondaryMultusNetwork } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceNetworkInterface } from '../../kubevirt/index.ts';
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
import { addInfoSource, removeInfoSource } from '../../network/info-source.ts';
import { podPrimaryInterfaceName, type PodNetworkStatus } from '../../network/multus-status.ts';
import { nameSchemeFromPod } from '../../network/namescheme.ts';

type IfaceStatus = VirtualMachineInstanceNetworkInterface;

const PRIMARY_POD_INTERFACE = 'eth0';

function withSource(entry: IfaceStatus, infoSource: string | undefined): IfaceStatus {
  const out = { ...entry };
  if (infoSource === undefined) delete out.infoSource;
  else out.infoSource = infoSource;
  return out;
}

function primary(vmi: VirtualMachineInstance, statuses: readonly PodNetworkStatus[]): IfaceStatus[] {
  const network = defaultNetwork(vmi.spec.networks ?? []);
  if (network === undefined) return [];
  const named = podPrimaryInterfaceName(statuses);
  const podInterfaceName = named === '' ? PRIMARY_POD_INTERFACE : named;
  const current = vmi.status?.interfaces?.find((s) => s.name === network.name);
  return [{ ...(current ?? { name: network.name }), podInterfaceName }];
}

function secondaries(vmi: VirtualMachineInstance, statuses: readonly PodNetworkStatus[]): IfaceStatus[] {
  const networks = vmi.spec.networks ?? [];
  const podInterfaces = statuses.map((s) => s.interface);
  const inPod = new Set(podInterfaces);
  const scheme = nameSchemeFromPod(networks, podInterfaces);
  const out: IfaceStatus[] = [];
  for (const network of networks.filter(isSecondaryMultusNetwork)) {
    // The scheme names every secondary network; the fallback only satisfies the type.
    const podInterfaceName = scheme.get(network.name) ?? '';
    const current = vmi.status?.interfaces?.find((s) => s.name === network.name);
    if (inPod.has(podInterfaceName)) {
      const entry = current ?? { name: network.name };
      out.push({
        ...withSource(entry, addInfoSource(entry.infoSource, 'multus-status')),
        podInterfaceName,
      });
    } else if (current !== undefined) {
      out.push({
        ...withSource(current, removeInfoSource(current.infoSource, 'multus-status')),
        podInterfaceName,
      });
    }
  }
  return out;
}

const byName = (list: readonly IfaceStatus[]): IfaceStatus[] =>
  list.toSorted((a, b) => {
    const [x, y] = [a.name ?? '', b.name ?? ''];
    return x < y ? -1 : x > y ? 1 : 0;
  });

/**
 * status.interfaces with what the launcher Pod's network-status says: the current list itself when only the
 * order would change, undefined when there is nothing to report.
 */
export function interfacesFromPod(
  vmi: VirtualMachineInstance,
  statuses: readonly PodNetworkStatus[],
): IfaceStatus[] | undefined {
  const current = vmi.status?.interfaces;
  const specNetworks = new Set((vmi.spec.networks ?? []).map((n) => n.name));
  const next = [
    ...primary(vmi, statuses),
    ...secondaries(vmi, statuses),
    ...(current ?? []).filter((s) => !specNetworks.has(s.name ?? '')),
  ];
  if (deepEqual(byName(next), byName(current ?? []))) return current;
  return next.length === 0 ? undefined : next;
}
