/**
 * Migration phases as a constant object (`MIGRATION_PHASE.Succeeded`) and the VMI's final phases, taken from
 * the enum schemas so each value is written once.
 */
import type { EnumSchema } from './schema/dsl.ts';
import { migrationPhase } from './v1/migration.ts';
import { vmiPhase } from './v1/vmi-status.ts';

export type EnumObject<V extends string> = { readonly [K in V]: K };

function enumObject<V extends string>(schema: EnumSchema<V>): EnumObject<V> {
  return Object.freeze(Object.fromEntries(schema.values.map((v) => [v, v])) as EnumObject<V>);
}

const VMI_PHASE = enumObject(vmiPhase);
export const MIGRATION_PHASE = enumObject(migrationPhase);

/** VMI phases after which the VMI never runs again. */
export const VMI_FINAL_PHASES = [VMI_PHASE.Succeeded, VMI_PHASE.Failed] as const;
