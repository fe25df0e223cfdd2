/**
 * The KubeVirt CR the controller reads its cluster-wide settings from (kubevirt virt-config
 * ClusterConfig.GetConfigFromKubeVirtCR, tag v1.6.2): one not being deleted, the oldest when there are several
 * (the api admits one per cluster). KubeVirt also waits until its operator has given the CR a phase; no
 * operator runs here yet, so a CR counts as soon as it exists.
 */
import type { KubeVirt } from '../kubevirt/index.ts';
import { parseTime } from '../kernel/controller/time.ts';

export function clusterKubeVirt(kvs: readonly KubeVirt[]): KubeVirt | undefined {
  const created = (kv: KubeVirt): number => parseTime(kv.metadata.creationTimestamp) ?? 0;
  return kvs
    .filter((kv) => kv.metadata.deletionTimestamp === undefined)
    .sort((a, b) => created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .at(0);
}
