/**
 * status.interfaces as KubeVirt's handler reports them (pkg/network/setup netstat.go UpdateStatus, tag v1.6.2):
 * one entry per interface of the domain, named by its alias, with its MAC, queue count and link state and
 * `infoSource: domain`; the Pod interface's addresses (what the handler read in the launcher Pod's namespace)
 * as ipAddress/ipAddresses; then what the guest agent says (matched by MAC: the name in the guest, and its
 * addresses of a family the entry has none of, or none of a family the agent reports none of; an interface of
 * the guest's alone is added with `infoSource: guest-agent`); the Pod network's entry first, kept (by name)
 * while the domain lacks it; what the controller learned from Multus kept (netstat.go ifacesStatusFromMultus):
 * `multus-status` stays in the infoSource of an entry that had it (`domain, guest-agent, multus-status`), and an
 * interface of the spec only Multus reported so far stays as a name-only entry after the others; each entry's
 * podInterfaceName as last reported. Pure.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceNetworkInterface as IfaceStatus } from '../../kubevirt/v1/vmi-status.ts';
import { isIPv4, isIPv6 } from 'node:net';
import type { DomainJson, InterfaceJson, InterfaceStatusJson } from '../../rpc/index.ts';
import { addInfoSource, hasInfoSource } from '../../network/info-source.ts';

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

/** netstat.go updateVMIIfaceStatusWithGuestAgentData: per family, the agent's addresses replace none or clear them. */
function mergedIps(have: readonly string[], agent: readonly string[]): string[] {
  const pick = (is: (ip: string) => boolean): string[] => {
    const mine = have.filter(is);
    const theirs = agent.filter(is);
    return mine.length === 0 || theirs.length === 0 ? theirs : mine;
  };
  return [...pick(isIPv4), ...pick(isIPv6)];
}

function withGuestAgent(out: IfaceStatus[], agent: readonly InterfaceStatusJson[]): IfaceStatus[] {
  const merged = [...out];
  for (const g of agent) {
    const at = merged.findIndex((s) => s.mac !== undefined && s.mac.toLowerCase() === g.Mac.toLowerCase());
    const found = merged[at];
    if (found === undefined) {
      merged.push({
        mac: g.Mac,
        ipAddress: g.Ip,
        ipAddresses: [...g.IPs],
        interfaceName: g.InterfaceName,
        infoSource: 'guest-agent',
      });
      continue;
    }
    const ips = mergedIps(found.ipAddresses ?? [], g.IPs);
    const next: IfaceStatus = { ...found, interfaceName: g.InterfaceName, infoSource: 'domain, guest-agent' };
    delete next.ipAddress;
    delete next.ipAddresses;
    const [first] = ips;
    merged[at] = first === undefined ? next : { ...next, ipAddress: first, ipAddresses: ips };
  }
  return merged;
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

/** The multus-status source of the entries that had it; a name-only entry for an interface of the spec. */
function withMultus(
  out: IfaceStatus[],
  previous: readonly IfaceStatus[],
  vmi: VirtualMachineInstance,
): IfaceStatus[] {
  const merged = [...out];
  const inSpec = new Set((vmi.spec.domain.devices.interfaces ?? []).map((i) => i.name));
  for (const p of previous) {
    if (p.name === undefined || !hasInfoSource(p.infoSource, 'multus-status')) continue;
    const at = merged.findIndex((s) => s.name === p.name);
    const found = merged[at];
    if (found !== undefined)
      merged[at] = { ...found, infoSource: addInfoSource(found.infoSource, 'multus-status') };
    else if (inSpec.has(p.name)) merged.push({ name: p.name, infoSource: 'multus-status' });
  }
  return merged;
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
  const withAgent = withGuestAgent(fromSpec, domain.Status.Interfaces ?? []);
  const primary = primaryFirst(
    withAgent,
    previous,
    vmi.spec.networks?.find((n) => n.pod !== undefined)?.name,
  );
  const out = withMultus(primary, previous, vmi);
  if (out.length === 0 && previous.length === 0) return undefined;
  return out.map((s) => {
    const pod = previous.find((p) => p.name === s.name)?.podInterfaceName;
    return pod === undefined ? s : { ...s, podInterfaceName: pod };
  });
}
