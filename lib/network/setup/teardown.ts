/**
 * The inverse of a plan: the links the setup created and the NAT tables it wrote, and their removal rendered for
 * one `ip -batch` and one `nft -f` run (kubevirt pkg/network/setup/netpod netpod.go composeDesiredSpec for an
 * absent interface, tag v1.6.2: only links of a type KubeVirt creates go, so the bridge binding's renamed pod
 * interface stays as it is).
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { Interface, Network } from '../../kubevirt/index.ts';
import { bridgeName, tapDeviceName } from '../link-names.ts';
import type { IpFamily } from './addresses.ts';
import type { Link } from './pod-interface.ts';

export interface Teardown {
  /** The setup's links with their kind: a link of that name but another kind is not the setup's and stays. */
  readonly links: readonly Link[];
  /** The families whose `nat` table goes. */
  readonly natFamilies: readonly IpFamily[];
}

interface RenderedTeardown {
  readonly ipBatch: readonly string[];
  /** '' when there is no table to remove. */
  readonly nftScript: string;
}

/** What the plan of iface (on network, at the pod interface podInterfaceName) left in the namespace. */
export function planTeardown(iface: Interface, network: Network, podInterfaceName: string): Teardown {
  const ours = [
    { name: tapDeviceName(podInterfaceName, network), kind: 'tun' },
    { name: bridgeName(podInterfaceName), kind: 'bridge' },
  ];
  if (iface.masquerade !== undefined) return { links: ours, natFamilies: ['ip', 'ip6'] };
  if (iface.bridge !== undefined) {
    return { links: [...ours, { name: podInterfaceName, kind: 'dummy' }], natFamilies: [] };
  }
  throw new KvError(
    'KV_ERR_INVALID',
    `interface ${iface.name} has neither the masquerade nor the bridge binding`,
  );
}

/**
 * The removal of the links of `t` that are `present` with their kind, and of the NAT tables: each table is
 * added before it is deleted, so the one transaction succeeds whether or not the table is there.
 */
export function renderTeardown(t: Teardown, present: readonly Link[]): RenderedTeardown {
  const isPresent = (l: Link): boolean => present.some((p) => p.name === l.name && p.kind === l.kind);
  return {
    ipBatch: t.links.filter(isPresent).map((l) => `link del dev ${l.name}`),
    nftScript: t.natFamilies.map((f) => `add table ${f} nat\ndelete table ${f} nat\n`).join(''),
  };
}
