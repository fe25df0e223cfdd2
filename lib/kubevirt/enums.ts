/**
 * Phases, printable statuses, run strategies and condition types as constant objects (`VMI_PHASE.Running`),
 * taken from the enum schemas so each value is written once.
 */
import type { EnumSchema } from './schema/dsl.ts';
import { conditionStatus } from './v1/common.ts';
import { diskBus } from './v1/disk.ts';
import { kubevirtConditionType, kubevirtPhase } from './v1/kubevirt.ts';
import { migrationConditionType, migrationPhase } from './v1/migration.ts';
import { printableStatus, runStrategy, stateChangeAction, vmConditionType } from './v1/vm.ts';
import { evictionStrategy } from './v1/vmi-spec.ts';
import { vmiConditionType, vmiPhase } from './v1/vmi-status.ts';

export type EnumObject<V extends string> = { readonly [K in V]: K };

export function enumObject<V extends string>(schema: EnumSchema<V>): EnumObject<V> {
  return Object.freeze(Object.fromEntries(schema.values.map((v) => [v, v])) as EnumObject<V>);
}

export const VMI_PHASE = enumObject(vmiPhase);
export const VMI_CONDITION = enumObject(vmiConditionType);
export const VM_PRINTABLE_STATUS = enumObject(printableStatus);
export const VM_CONDITION = enumObject(vmConditionType);
export const RUN_STRATEGY = enumObject(runStrategy);
export const STATE_CHANGE_ACTION = enumObject(stateChangeAction);
export const EVICTION_STRATEGY = enumObject(evictionStrategy);
export const MIGRATION_PHASE = enumObject(migrationPhase);
export const MIGRATION_CONDITION = enumObject(migrationConditionType);
export const KUBEVIRT_PHASE = enumObject(kubevirtPhase);
export const KUBEVIRT_CONDITION = enumObject(kubevirtConditionType);
export const CONDITION_STATUS = enumObject(conditionStatus);
export const DISK_BUS = enumObject(diskBus);

/** VMI phases after which the VMI never runs again. */
export const VMI_FINAL_PHASES = [VMI_PHASE.Succeeded, VMI_PHASE.Failed] as const;
