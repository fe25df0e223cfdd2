/**
 * What the migration controller watches and how events reach its queue (kubevirt migration.go addPod,
 * updateVMI & co., tag v1.6.2): migrations wake themselves; a VMI wakes every migration of it (index by
 * namespace/vmiName); a target Pod (label kubevirt.io/migrationJobUID) wakes its migration and counts towards
 * the Pod expectations. The Pod cache is the VMI controller's launcher Pod cache with one more index.
 */
import {
  APP_LABEL,
  KUBEVIRTS,
  LABELS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../kubevirt/index.ts';
import type {
  KubeVirt,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from '../../kubevirt/index.ts';
import { enqueueOwnKey, objectKey } from '../../kernel/controller/keys.ts';
import type { UIDTrackingExpectations } from '../../kernel/controller/expectations.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { PERSISTENT_VOLUME_CLAIMS, PODS } from '../../kernel/kube/resources.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { watch, type Caches } from '../registry.ts';
import { vmiIndexers } from '../vmi/indexers.ts';

const BY_VMI = 'migration-vmi';
const BY_MIGRATION_UID = 'migration-uid';

/** Migrations by namespace/spec.vmiName. */
const migrationVmiIndex: Indexer<VirtualMachineInstanceMigration> = (m) =>
  m.spec.vmiName === undefined ? [] : [`${m.metadata.namespace ?? ''}/${m.spec.vmiName}`];

/** Target Pods by namespace/migration uid (their kubevirt.io/migrationJobUID label). */
const migrationUidIndex: Indexer<Pod> = (pod) => {
  const uid = pod.metadata.labels?.[LABELS.MIGRATION_JOB_UID];
  return uid === undefined || uid === '' ? [] : [`${pod.metadata.namespace ?? ''}/${uid}`];
};

/** Migrations by namespace/uid, for the Pod events (an informer has no uid index). */
const BY_UID = 'migration-own-uid';
const uidIndex: Indexer<VirtualMachineInstanceMigration> = (m) => [
  `${m.metadata.namespace ?? ''}/${m.metadata.uid ?? ''}`,
];

export const MIGRATION_WATCHES = {
  migrations: watch<VirtualMachineInstanceMigration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
    indexers: { [BY_VMI]: migrationVmiIndex, [BY_UID]: uidIndex },
  }),
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
  pods: watch<Pod>(PODS, {
    labelSelector: APP_LABEL,
    indexers: { ...vmiIndexers, [BY_MIGRATION_UID]: migrationUidIndex },
  }),
  kubevirts: watch<KubeVirt>(KUBEVIRTS, { scope: 'config' }),
  // The claims of the hotplugged volumes an attachment Pod on the target node mounts.
  pvcs: watch<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS),
};

/** The migrations of the VMI. */
export const migrationsOfVmi = (
  migrations: StoreReader<VirtualMachineInstanceMigration>,
  namespace: string,
  vmiName: string,
): VirtualMachineInstanceMigration[] => migrations.byIndex(BY_VMI, `${namespace}/${vmiName}`);

/** The target Pods of the migration. */
export const targetPodsOf = (pods: StoreReader<Pod>, m: VirtualMachineInstanceMigration): Pod[] =>
  pods.byIndex(BY_MIGRATION_UID, `${m.metadata.namespace ?? ''}/${m.metadata.uid ?? ''}`);

type Enqueue = (key: string) => void;

function podHandler(
  migrations: StoreReader<VirtualMachineInstanceMigration>,
  expectations: UIDTrackingExpectations,
  enqueue: Enqueue,
): EventHandler<Pod> {
  const migrationKey = (pod: Pod): string | undefined => {
    const uid = pod.metadata.labels?.[LABELS.MIGRATION_JOB_UID];
    if (uid === undefined) return undefined;
    const m = migrations.byIndex(BY_UID, `${pod.metadata.namespace ?? ''}/${uid}`)[0];
    return m === undefined ? undefined : objectKey(m);
  };
  const deleted = (pod: Pod): void => {
    const key = migrationKey(pod);
    if (key === undefined) return;
    expectations.deletionObserved(key, pod.metadata.uid ?? '');
    enqueue(key);
  };
  return {
    onAdd: (pod): void => {
      if (pod.metadata.deletionTimestamp !== undefined) {
        deleted(pod);
        return;
      }
      const key = migrationKey(pod);
      if (key === undefined) return;
      expectations.creationObserved(key);
      enqueue(key);
    },
    onUpdate: (old, pod): void => {
      if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
      if (pod.metadata.deletionTimestamp !== undefined) {
        deleted(pod);
        return;
      }
      const key = migrationKey(pod);
      if (key !== undefined) enqueue(key);
    },
    onDelete: deleted,
  };
}

export function watchForMigrations(
  inf: Pick<Caches<typeof MIGRATION_WATCHES>, 'migrations' | 'vmis' | 'pods'>,
  expectations: UIDTrackingExpectations,
  enqueue: Enqueue,
): void {
  const migrations = inf.migrations.store;
  inf.migrations.addEventHandler(enqueueOwnKey(enqueue));
  const wakeVmi = (vmi: VirtualMachineInstance): void => {
    const ns = vmi.metadata.namespace ?? '';
    for (const m of migrationsOfVmi(migrations, ns, vmi.metadata.name ?? '')) enqueue(objectKey(m));
  };
  inf.vmis.addEventHandler({
    onAdd: wakeVmi,
    onUpdate: (_old, vmi): void => {
      wakeVmi(vmi);
    },
    onDelete: wakeVmi,
  });
  inf.pods.addEventHandler(podHandler(migrations, expectations, enqueue));
}
