/**
 * The MTU and MAC each tap-attached interface of the domain gets: those of its Pod interface link, read in the
 * launcher's own network namespace (the MAC only counts when the VMI names none) (kubevirt domainspec/generators.go TapLibvirtSpecGenerator over the link
 * link/discovery.go DiscoverByNetwork finds, for the NICs setup/network.go getPhase2NICs plugs, tag v1.6.2).
 * The handler gives the tap, and a bridge binding's stand-in dummy, that link's MTU, so the guest's NIC matches.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Interface, Network, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import { MAX_INTERFACE_NAME_LENGTH } from '../../network/link-names.ts';
import { ordinalNameScheme, podInterfaceName } from '../../network/namescheme.ts';
import type { PodLink } from '../converter/index.ts';

/** An interface of the VMI and the Pod links that may stand for it, in the order KubeVirt looks. */
export interface PodLinkCandidates {
  readonly name: string;
  readonly links: readonly string[];
}

export interface PodLinks {
  /** Interface name → the first of its Pod links that exists. */
  readonly byInterface: ReadonlyMap<string, PodLink>;
  /** Interfaces none of whose Pod links exists: KubeVirt leaves their MTU and MAC out and goes on. */
  readonly missing: readonly string[];
}

const TAP_BINDINGS = ['bridge', 'masquerade', 'macvtap'] as const;

/** getPhase2NICs with newLibvirtSpecGenerator: present, on a Pod or Multus network, attached to the domain by tap. */
function attachedByTap(
  iface: Interface,
  network: Network | undefined,
  attachment: ReadonlyMap<string, string> | undefined,
): boolean {
  if (iface.state === 'absent' || network === undefined) return false;
  if (network.pod === undefined && network.multus === undefined) return false;
  if (TAP_BINDINGS.some((b) => iface[b] !== undefined)) return true;
  return iface.binding !== undefined && attachment?.get(iface.name) === 'tap';
}

/**
 * The tap-attached interfaces and their candidate Pod links: the hashed-scheme name (or the one the VMI status
 * reports for the default network), then the ordinal-scheme one (`net1`, … for Pods from before the hashed
 * names; eth0 for the default network). Pure.
 */
export function podLinkCandidates(
  vmi: VirtualMachineInstance,
  attachment: ReadonlyMap<string, string> | undefined,
): PodLinkCandidates[] {
  const networks = vmi.spec.networks ?? [];
  const statuses = vmi.status?.interfaces ?? [];
  const ordinal = ordinalNameScheme(networks);
  return (vmi.spec.domain.devices.interfaces ?? []).flatMap((iface) => {
    const network = networks.find((n) => n.name === iface.name);
    if (network === undefined || !attachedByTap(iface, network, attachment)) return [];
    const links = [podInterfaceName(network, statuses), ordinal.get(network.name) ?? ''];
    return [{ name: iface.name, links: [...new Set(links.filter((l) => l !== ''))] }];
  });
}

/** A name Linux could have given a link; anything else (a path, say) names none. */
function isLinkName(name: string): boolean {
  return name.length <= MAX_INTERFACE_NAME_LENGTH && name !== '.' && name !== '..' && !/[/\s:]/.test(name);
}

function errno(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/** `<root>/sys/class/net/<link>/<attribute>`, or undefined when there is no such link. */
async function readAttribute(root: string, link: string, attribute: string): Promise<string | undefined> {
  const file = path.join(root, 'sys/class/net', link, attribute);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    if (errno(err) === 'ENOENT') return undefined;
    throw new KvError('KV_ERR_LAUNCHER', `reading the ${attribute} of link ${link}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** The MTU and MAC (an Ethernet one only) of `<root>/sys/class/net/<link>`, or undefined when there is no such link. */
async function readLink(root: string, link: string): Promise<PodLink | undefined> {
  if (!isLinkName(link)) return undefined;
  const text = await readAttribute(root, link, 'mtu');
  if (text === undefined) return undefined;
  const mtu = Number(text);
  if (!Number.isSafeInteger(mtu) || mtu <= 0) {
    throw new KvError('KV_ERR_DECODE', `link ${link}: not an MTU: ${JSON.stringify(text)}`);
  }
  const mac = (await readAttribute(root, link, 'address'))?.toLowerCase();
  return mac !== undefined && MAC.test(mac) ? { mtu, mac } : { mtu };
}

/** Each candidate's first existing Pod link, read from sysfs under `root`. */
export async function readPodLinks(
  root: string,
  candidates: readonly PodLinkCandidates[],
): Promise<PodLinks> {
  const byInterface = new Map<string, PodLink>();
  const missing: string[] = [];
  for (const c of candidates) {
    let found: PodLink | undefined;
    for (const link of c.links) {
      found = await readLink(root, link);
      if (found !== undefined) break;
    }
    if (found === undefined) missing.push(c.name);
    else byInterface.set(c.name, found);
  }
  return { byInterface, missing };
}
