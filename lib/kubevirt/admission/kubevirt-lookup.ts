/**
 * KubeVirtLookup over the cluster, for the role: the KubeVirt CRs and the VMs are listed when a review needs
 * them (KubeVirt CR creates and deletes are rare; the VM list asks for one item), the VMIs are counted in the
 * role's VMI cache, and the placement probes are created with dryRun=All straight to the API server (they are
 * apps/v1 objects with a kubevirt.io label the rename rules must not touch). Needs list on
 * kubevirts.kubevirt.io and virtualmachines.kubevirt.io, create on apps deployments and daemonsets in the
 * KubeVirt CR's namespace.
 */
import { KUBEVIRTS, VIRTUAL_MACHINES, type KubeVirt } from '../index.ts';
import type { PlacementProbe } from '../validation/index.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { GroupVersionResource, KubeClient } from '../../kernel/kube/index.ts';
import type { KubeVirtLookup } from './kubevirt-admitters.ts';

const apps = (resource: string, kind: PlacementProbe['kind']): GroupVersionResource =>
  Object.freeze({ group: 'apps', version: 'v1', resource, kind, namespaced: true });
const PROBE_RESOURCES: Readonly<Record<PlacementProbe['kind'], GroupVersionResource>> = {
  Deployment: apps('deployments', 'Deployment'),
  DaemonSet: apps('daemonsets', 'DaemonSet'),
};

export interface ClusterKubeVirtLookupOptions {
  /** Speaks kubevirt.io names (the rename rules applied). */
  readonly client: KubeClient;
  /** Straight to the API server. */
  readonly direct: KubeClient;
  /** How many VMIs the role's cache holds. */
  readonly vmiCount: () => number;
}

export function clusterKubeVirtLookup(o: ClusterKubeVirtLookupOptions): KubeVirtLookup {
  return {
    kubevirts: async (namespace): Promise<KubeVirt[]> =>
      (await o.client.list<KubeVirt>(KUBEVIRTS, namespace === undefined ? {} : { namespace })).items,
    anyVmi: (): Promise<boolean> => Promise.resolve(o.vmiCount() > 0),
    anyVm: async (): Promise<boolean> =>
      (await o.client.list(VIRTUAL_MACHINES, { limit: 1 })).items.length > 0,
    dryRunCreate: async (namespace, probe): Promise<string | undefined> => {
      try {
        await o.direct.create(PROBE_RESOURCES[probe.kind], probe, { namespace, dryRun: true });
        return undefined;
      } catch (err) {
        return errorMessage(err);
      }
    },
  };
}
