/**
 * The launcher Pod's interfaces as Multus reports them in its `k8s.v1.cni.cncf.io/network-status` annotation
 * (kubevirt pkg/network/multus status.go NetworkStatusesFromPod and LookupPodPrimaryIfaceName, tag v1.6.2).
 * Anyone who may edit the Pod may write the annotation, so it is read defensively: not JSON or not a list
 * gives no entries, an entry that is not an object is skipped, a field of the wrong type reads as absent (as
 * Go's decoder leaves it zero). The problem found is named briefly, never quoted, for the caller to log.
 */

const NETWORK_STATUS_ANNOTATION = 'k8s.v1.cni.cncf.io/network-status';

/** The fields of a Multus NetworkStatus KubeVirt reads. */
export interface PodNetworkStatus {
  /** The interface's name in the Pod ('' when Multus does not say). */
  readonly interface: string;
  /** The Pod's default (cluster) network. */
  readonly default: boolean;
}

export interface PodNetworkStatuses {
  readonly statuses: readonly PodNetworkStatus[];
  /** Why (part of) the annotation was ignored. */
  readonly problem?: string;
}

function parsed(raw: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(raw) as unknown };
  } catch {
    return undefined;
  }
}

/** The network statuses of a Pod's annotations; none without the annotation. */
export function podNetworkStatuses(
  annotations: Readonly<Record<string, string>> | undefined,
): PodNetworkStatuses {
  const raw = annotations?.[NETWORK_STATUS_ANNOTATION] ?? '';
  if (raw === '') return { statuses: [] };
  const json = parsed(raw);
  if (json === undefined) return { statuses: [], problem: 'not JSON' };
  if (json.value === null) return { statuses: [] };
  if (!Array.isArray(json.value)) return { statuses: [], problem: 'not a list' };
  return entries(json.value as unknown[]);
}

function entries(list: readonly unknown[]): PodNetworkStatuses {
  const statuses: PodNetworkStatus[] = [];
  let problem: string | undefined;
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problem = 'an entry is not an object';
      continue;
    }
    const { interface: name, default: isDefault } = entry as Record<string, unknown>;
    statuses.push({ interface: typeof name === 'string' ? name : '', default: isDefault === true });
  }
  return { statuses, ...(problem !== undefined && { problem }) };
}

/** multus.LookupPodPrimaryIfaceName: the default network's interface, '' when Multus names none. */
export function podPrimaryInterfaceName(statuses: readonly PodNetworkStatus[]): string {
  return statuses.find((s) => s.default && s.interface !== '')?.interface ?? '';
}
