/**
 * Migration fixtures for the migration controller's tests: migration(withMigrationPhase('Running'), ...), and
 * VMI options for a migrationState (the objects of lib/kubevirt/testing/objects.ts otherwise).
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../../kubevirt/index.ts';
import type { MigrationConditionType, MigrationPhase } from '../../../kubevirt/v1/migration.ts';
import type { Option } from '../../../kubevirt/testing/objects.ts';
import { NS } from '../../../kubevirt/testing/objects.ts';

const MIGRATION_UID = 'mig-uid-1';
type MigrationState = NonNullable<NonNullable<VirtualMachineInstance['status']>['migrationState']>;

export function migration(
  ...opts: Option<VirtualMachineInstanceMigration>[]
): VirtualMachineInstanceMigration {
  const out: VirtualMachineInstanceMigration = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name: 'testvm-migration', namespace: NS, uid: MIGRATION_UID, resourceVersion: '40' },
    spec: { vmiName: 'testvm' },
  };
  for (const o of opts) o(out);
  return out;
}

export const withMigrationPhase =
  (phase: MigrationPhase): Option<VirtualMachineInstanceMigration> =>
  (m) => {
    (m.status ??= {}).phase = phase;
  };

export const migrationDeleting: Option<VirtualMachineInstanceMigration> = (m) => {
  m.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
};

export const withMigrationCondition =
  (type: MigrationConditionType): Option<VirtualMachineInstanceMigration> =>
  (m) => {
    ((m.status ??= {}).conditions ??= []).push({ type, status: 'True' });
  };

export const withMigrationAnnotation =
  (key: string, value: string): Option<VirtualMachineInstanceMigration> =>
  (m) => {
    (m.metadata.annotations ??= {})[key] = value;
  };

/** status.migrationState on the VMI, owned by MIGRATION_UID unless the fields say otherwise. */
export const withMigrationState =
  (state: Partial<MigrationState> = {}): Option<VirtualMachineInstance> =>
  (v) => {
    (v.status ??= {}).migrationState = { migrationUid: MIGRATION_UID, ...state };
  };

export const onVmiNode =
  (node: string): Option<VirtualMachineInstance> =>
  (v) => {
    (v.status ??= {}).nodeName = node;
  };
