/**
 * Writes the KubeVirt resource's status computed from an observation, only when it changed (KubeVirt's
 * updateStatus after each sync), as a merge patch of the status subresource through the kubevirt.io client.
 */
import type { Clock } from '../../kernel/clock.ts';
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import { KUBEVIRTS, type KubeVirt } from '../../kubevirt/index.ts';
import { computeKubeVirtStatus, type StatusObservation } from '../status/compute.ts';

export interface StatusWriter {
  /** Returns the resource as it stands after the write (the cached one when nothing changed). */
  write(kv: KubeVirt, observation: StatusObservation): Promise<KubeVirt>;
}

export function statusWriter(client: Pick<KubeClient, 'patch'>, clock: Clock): StatusWriter {
  return {
    write: async (kv, observation): Promise<KubeVirt> => {
      const next = computeKubeVirtStatus(kv.status, observation, new Date(clock.now()).toISOString());
      if (deepEqual(next, kv.status ?? {})) return kv;
      return client.patch<KubeVirt>(
        KUBEVIRTS,
        kv.metadata.name ?? '',
        { status: next },
        {
          type: 'merge',
          subresource: 'status',
          ...(kv.metadata.namespace !== undefined && { namespace: kv.metadata.namespace }),
        },
      );
    },
  };
}
