/**
 * libvirt's typed parameters (virTypedParameter) as a plain record. 64-bit integers become numbers: exact
 * up to 2^53, which covers byte counts and nanosecond times of any real guest.
 */
import { TYPED_PARAM } from './constants.ts';
import type { WireTypedParam } from './procedures.ts';

export type TypedValue = number | string | boolean;

function typedValue(p: WireTypedParam['value']): TypedValue {
  if (p.tag === TYPED_PARAM.BOOLEAN) return p.value !== 0;
  return typeof p.value === 'bigint' ? Number(p.value) : p.value;
}

export function typedParamsToRecord(params: readonly WireTypedParam[]): Record<string, TypedValue> {
  const out: Record<string, TypedValue> = {};
  for (const p of params) out[p.field] = typedValue(p.value);
  return out;
}
