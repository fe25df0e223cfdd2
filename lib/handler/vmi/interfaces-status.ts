/**
 * status.interfaces as KubeVirt's handler reports them (pkg/network/setup netstat.go UpdateStatus, tag v1.6.2):
 * one entry per interface of the domain, named by its alias, with its MAC, queue count and link state and
 * `infoSource: domain`; the Pod interface's addresses (what the handler read in the launcher Pod's namespace)
 * as ipAddress/ipAddresses; the Pod network's entry first, kept (by name) while the domain lacks it, and each
 * entry's podInterfaceName as last reported. What the guest agent says of its interfaces is not read yet: no
 * entry has `guest-agent` as a source. Pure.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceNetworkInterface as IfaceStatus } from '../../kubevirt/v1/vmi-status.ts';
import type { DomainJson, InterfaceJson } from '../../rpc/index.ts';

const USER_ALIAS = 'ua-';
const DEFAULT_QUEUES = 1;

const aliasName = (i: InterfaceJson): string =>
  i.Alias.Name.startsWith(USER_ALIAS) ? i.Alias.Name.slice(USER_ALIAS.length) : i.Alias.Name;

function fromDomain(i: InterfaceJson, podIps: readonly string[] | undefined): IfaceStatus {
  const [ip] = podIps ?? [];
  return {
    name: aliasName(i),
    ...(i.MAC !== undefined && { mac: i.MAC.MAC }),
    ...(ip !== undefined && { ipAddress: ip, ipAddresses: [...(podIps ?? [])] }),
    infoSource: 'domain',
    queueCount: i.Driver?.Queues ?? DEFAULT_QUEUES,
    linkState: i.LinkState?.State ?? 'up',
  };
}

/** The Pod network's entry first; a name-only entry while the domain lacks one reported before. */
function primaryFirst(
  out: IfaceStatus[],
  previous: readonly IfaceStatus[],
  primary: string | undefined,
): IfaceStatus[] {
  if (primary === undefined) return out;
  const at = out.findIndex((s) => s.name === primary);
  if (at > 0) return [out[at] as IfaceStatus, ...out.slice(0, at), ...out.slice(at + 1)];
  if (at < 0 && previous.some((s) => s.name === primary)) return [{ name: primary }, ...out];
  return out;
}

/**
 * The new status.interfaces, or undefined to leave them as they are (no domain reported, or none to report).
 * podIps: the addresses of each VMI interface's Pod interface, by interface name.
 */
export function interfacesStatus(
  vmi: VirtualMachineInstance,
  domain: DomainJson | undefined,
  podIps: ReadonlyMap<string, readonly string[]>,
): IfaceStatus[] | undefined {
  if (domain === undefined) return undefined;
  const previous = vmi.status?.interfaces ?? [];
  const fromSpec = (domain.Spec.Devices.Interfaces ?? []).map((i) => fromDomain(i, podIps.get(aliasName(i))));
  const out = primaryFirst(fromSpec, previous, vmi.spec.networks?.find((n) => n.pod !== undefined)?.name);
  if (out.length === 0 && previous.length === 0) return undefined;
  return out.map((s) => {
    const pod = previous.find((p) => p.name === s.name)?.podInterfaceName;
    return pod === undefined ? s : { ...s, podInterfaceName: pod };
  });
}
