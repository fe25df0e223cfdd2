/**
 * KubeVirtLookup over the cluster, as KubeVirt's operator webhooks read it (pkg/virt-operator/webhooks): the
 * KubeVirt CRs, the VMIs and the VMs are listed when a review needs them (KubeVirt CR creates, updates and
 * deletes are rare; the workload lists ask for one item), and the placement probes are created with dryRun=All
 * straight to the API server (they are apps/v1 objects with a kubevirt.io label the rename rules must not
 * touch). Needs list on kubevirts, virtualmachineinstances and virtualmachines (kubevirt.io names, stored under
 * their internal ones), create on apps deployments and daemonsets in the KubeVirt CR's namespace.
 */
import { KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES, type KubeVirt } from '../index.ts';
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
  readonly client: Pick<KubeClient, 'list'>;
  /** Straight to the API server. */
  readonly direct: Pick<KubeClient, 'create'>;
}

export function clusterKubeVirtLookup(o: ClusterKubeVirtLookupOptions): KubeVirtLookup {
  const any = async (gvr: GroupVersionResource): Promise<boolean> =>
    (await o.client.list(gvr, { limit: 1 })).items.length > 0;
  return {
    kubevirts: async (namespace): Promise<KubeVirt[]> =>
      (await o.client.list<KubeVirt>(KUBEVIRTS, namespace === undefined ? {} : { namespace })).items,
    anyVmi: (): Promise<boolean> => any(VIRTUAL_MACHINE_INSTANCES),
    anyVm: (): Promise<boolean> => any(VIRTUAL_MACHINES),
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
