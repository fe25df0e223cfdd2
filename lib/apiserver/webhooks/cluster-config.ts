/**
 * The admitters' view of the cluster configuration (KubeVirt virt-config ClusterConfig.GetConfig): the
 * validation context of the KubeVirt CR that configures the cluster, read again only when that CR's
 * resourceVersion changes. A configuration KubeVirt would refuse is logged once per resourceVersion and the last
 * good context kept; so is the last good one once the CR is gone or being deleted, as in KubeVirt. Before any
 * CR is seen the context is KubeVirt's defaults.
 */
import type { KubeVirt } from '../../kubevirt/index.ts';
import {
  DEFAULT_VALIDATION_CONTEXT,
  readClusterConfig,
  type ValidationContext,
} from '../../kubevirt/validation/index.ts';
import type { Logger } from '../../kernel/log/log.ts';

export type ClusterConfigSource = () => ValidationContext;

/** `configuring` gives the CR that configures the cluster now (undefined when there is none). */
export function clusterConfigSource(
  configuring: () => KubeVirt | undefined,
  log: Logger,
): ClusterConfigSource {
  let last = DEFAULT_VALIDATION_CONTEXT;
  let seen: string | undefined;
  return () => {
    const kv = configuring();
    if (kv === undefined) return last;
    const version = `${kv.metadata.uid ?? ''}/${kv.metadata.resourceVersion ?? ''}`;
    if (version === seen) return last;
    seen = version;
    const read = readClusterConfig(kv);
    if (read.ok) {
      last = read.context;
      log.info('cluster configuration read from the KubeVirt CR', {
        namespace: kv.metadata.namespace,
        name: kv.metadata.name,
        resourceVersion: kv.metadata.resourceVersion,
      });
    } else {
      log.warning('invalid cluster configuration in the KubeVirt CR; keeping the last good one', {
        namespace: kv.metadata.namespace,
        name: kv.metadata.name,
        resourceVersion: kv.metadata.resourceVersion,
        reason: read.problem,
      });
    }
    return last;
  };
}
