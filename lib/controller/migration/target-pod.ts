/**
 * newTargetPod: the launcher Pod a migration starts on another node (kubevirt template.go
 * RenderMigrationManifest with migration.go createTargetPod and createMigrationPodAntiAffinityRule, tag
 * v1.6.2). It is the VMI's launcher Pod (newLauncherPod) with: a required pod anti-affinity against every Pod
 * of the VMI (kubevirt.io/created-by=<VMI uid>) by kubernetes.io/hostname, so it never lands beside the source;
 * the migration's addedNodeSelector under the Pod's own selector (the VMI's keys win); the
 * kubevirt.io/migrationJobUID label and kubevirt.io/migrationJobName annotation. The owner stays the VMI.
 *
 * The name is virt-launcher-<vmi>-<5 hex of the migration uid> (KubeVirt: generateName), deterministic per
 * migration as the launcher's is per VMI. Not rendered: the host-model CPU node selectors (they need the source
 * Node's labels), the SELinux level copied from the source, the network target annotations and the source's
 * container-disk digests (containerDisks here are image volumes, which have no container status to read).
 */
import { ANNOTATIONS, LABELS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { launcherPodName, newLauncherPod, type LauncherPodConfig } from '../vmi/launcher-pod.ts';

const HOSTNAME_TOPOLOGY = 'kubernetes.io/hostname';

interface PodAffinityTerm {
  labelSelector: { matchLabels: Record<string, string> };
  topologyKey: string;
}

interface Affinity {
  podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  [key: string]: unknown;
}

/** The Pod's affinity with the term that keeps it off any node running a Pod of the VMI. */
function withAntiAffinity(affinity: Affinity | undefined, vmiUid: string): Affinity {
  const term: PodAffinityTerm = {
    labelSelector: { matchLabels: { [LABELS.CREATED_BY]: vmiUid } },
    topologyKey: HOSTNAME_TOPOLOGY,
  };
  const anti = affinity?.podAntiAffinity ?? {};
  return {
    ...affinity,
    podAntiAffinity: {
      ...anti,
      requiredDuringSchedulingIgnoredDuringExecution: [
        ...(anti.requiredDuringSchedulingIgnoredDuringExecution ?? []),
        term,
      ],
    },
  };
}

/** The migration's target launcher Pod; `backendStorageClaim` names the target's backend-storage claim if any. */
export function newTargetPod(
  vmi: VirtualMachineInstance,
  migration: VirtualMachineInstanceMigration,
  cfg: LauncherPodConfig,
  backendStorageClaim?: string,
): Pod {
  const pod = newLauncherPod(vmi, cfg, backendStorageClaim);
  const migrationUid = migration.metadata.uid ?? '';
  pod.metadata.name = launcherPodName({ metadata: { name: vmi.metadata.name ?? '', uid: migrationUid } });
  pod.metadata.labels = { ...pod.metadata.labels, [LABELS.MIGRATION_JOB_UID]: migrationUid };
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [ANNOTATIONS.MIGRATION_JOB_NAME]: migration.metadata.name ?? '',
  };
  pod.spec['affinity'] = withAntiAffinity(
    pod.spec['affinity'] as Affinity | undefined,
    vmi.metadata.uid ?? '',
  );
  pod.spec['nodeSelector'] = {
    ...migration.spec.addedNodeSelector,
    ...(pod.spec['nodeSelector'] as Record<string, string> | undefined),
  };
  return pod;
}
