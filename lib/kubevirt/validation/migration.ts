/**
 * VirtualMachineInstanceMigration admission (KubeVirt migration-create-admitter.go and
 * migration-update-admitter.go). On create: a VMI is named, exists, has not finished, is live-migratable (a
 * decentralized migration may move disks KubeVirt calls not migratable), has no other migration in flight, and
 * a decentralized migration needs its gate and one migration ID. On update: the spec never changes, and an
 * in-flight migration keeps its kubevirt.io/vmi-name label.
 *
 * The caller passes the VMI (undefined when there is none) and the namespace's migrations. KubeVirt answers
 * the VMI checks (exists, finished, migratable, in flight) with a 400 that has only a message; here each is one
 * cause with no field and that message.
 */
import { MIGRATION_PHASE, VMI_FINAL_PHASES } from '../enums.ts';
import { LABELS } from '../labels.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../v1/objects.ts';
import { firstFailing, invalid, notSupported, required, type Causes } from './causes.ts';
import { gateEnabled, GATES, type ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';

type Migration = Pick<VirtualMachineInstanceMigration, 'metadata' | 'spec' | 'status'>;

export interface MigrationCreateContext extends ValidationContext {
  /** The VMI spec.vmiName names in the migration's namespace, or undefined when it does not exist. */
  readonly vmi: Pick<VirtualMachineInstance, 'status'> | undefined;
  /** The migrations in the migration's namespace (those of other VMIs are skipped). */
  readonly migrations: readonly Migration[];
}

const DISKS_NOT_MIGRATABLE = 'DisksNotLiveMigratable';
const FINISHED: readonly (string | undefined)[] = [MIGRATION_PHASE.Succeeded, MIGRATION_PHASE.Failed];

/** One of sendTo and receive, not both (IsDecentralized). */
const isDecentralized = (m: Migration): boolean =>
  (m.spec.sendTo === undefined) !== (m.spec.receive === undefined);

function vmiCauses(migration: Migration, ctx: MigrationCreateContext): Causes {
  const name = migration.spec.vmiName ?? '';
  const vmi = ctx.vmi;
  if (vmi === undefined) {
    return [invalid('', `the VMI "${migration.metadata.namespace ?? ''}/${name}" does not exist`)];
  }
  const phase = vmi.status?.phase;
  if (VMI_FINAL_PHASES.some((p) => p === phase))
    return [invalid('', 'Cannot migrate VMI in finalized state.')];
  const refusal = (vmi.status?.conditions ?? []).find(
    (c) =>
      c.type === 'LiveMigratable' &&
      c.status === 'False' &&
      !(c.reason === DISKS_NOT_MIGRATABLE && isDecentralized(migration)),
  );
  if (refusal !== undefined) {
    return [
      invalid('', `Cannot migrate VMI, Reason: ${refusal.reason ?? ''}, Message: ${refusal.message ?? ''}`),
    ];
  }
  return [];
}

function inFlightCauses(migration: Migration, ctx: MigrationCreateContext): Causes {
  const name = migration.spec.vmiName ?? '';
  const active = ctx.migrations.find(
    (m) => m.metadata.labels?.[LABELS.MIGRATION_SELECTOR] === name && !FINISHED.includes(m.status?.phase),
  );
  if (active === undefined) return [];
  return [
    invalid(
      '',
      `in-flight migration detected. Active migration job (${active.metadata.uid ?? ''}) is currently already in progress for VMI ${active.spec.vmiName ?? ''}.`,
    ),
  ];
}

function decentralizedCauses(migration: Migration, ctx: ValidationContext): Causes {
  const { sendTo, receive } = migration.spec;
  if (sendTo === undefined && receive === undefined) return [];
  if (!gateEnabled(ctx, GATES.DECENTRALIZED_LIVE_MIGRATION)) {
    return [
      notSupported(
        '',
        `${GATES.DECENTRALIZED_LIVE_MIGRATION} feature gate is not enabled in kubevirt resource`,
      ),
    ];
  }
  if (sendTo !== undefined && receive !== undefined && sendTo.migrationID !== receive.migrationID) {
    return [
      invalid(
        '',
        `sendTo migrationID ${sendTo.migrationID} does not match receive migrationID ${receive.migrationID}`,
      ),
    ];
  }
  return [];
}

export function validateMigrationCreate(migration: Migration, ctx: MigrationCreateContext): Causes {
  if ((migration.spec.vmiName ?? '') === '') return [required('spec.vmiName', 'vmiName is missing')];
  return firstFailing(
    () => vmiCauses(migration, ctx),
    () => inFlightCauses(migration, ctx),
    () => decentralizedCauses(migration, ctx),
  );
}

function selectorLabelCauses(oldMigration: Migration, newMigration: Migration): Causes {
  const oldLabels = oldMigration.metadata.labels;
  if (FINISHED.includes(newMigration.status?.phase) || oldLabels === undefined) return [];
  const key = LABELS.MIGRATION_SELECTOR;
  if (!(key in oldLabels)) return [];
  const newLabels = newMigration.metadata.labels;
  if (newLabels === undefined) {
    return [notSupported('', "selector label can't be removed from an in-flight migration")];
  }
  return newLabels[key] === oldLabels[key] && key in newLabels
    ? []
    : [notSupported('', "selector label can't be modified on an in-flight migration")];
}

export function validateMigrationUpdate(oldMigration: Migration, newMigration: Migration): Causes {
  if (!semanticEqual(newMigration.spec, oldMigration.spec)) {
    return [notSupported('', "update of Migration object's spec is restricted")];
  }
  return selectorLabelCauses(oldMigration, newMigration);
}
