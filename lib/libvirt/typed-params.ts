/**
 * libvirt's typed parameters (virTypedParameter) as a plain record, both ways. 64-bit integers become numbers:
 * exact up to 2^53, which covers byte counts and nanosecond times of any real guest. Sending, each value
 * names its type (a migration's URI is a string, its bandwidth an unsigned long long, ...).
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

/** A parameter to send: its field, its libvirt type and its value. */
export type OutgoingParam =
  | { readonly field: string; readonly type: 'string'; readonly value: string }
  | { readonly field: string; readonly type: 'int' | 'uint'; readonly value: number }
  | { readonly field: string; readonly type: 'ullong'; readonly value: number }
  | { readonly field: string; readonly type: 'boolean'; readonly value: boolean };

export function toWireParam(p: OutgoingParam): WireTypedParam {
  switch (p.type) {
    case 'string':
      return { field: p.field, value: { tag: TYPED_PARAM.STRING, value: p.value } };
    case 'int':
      return { field: p.field, value: { tag: TYPED_PARAM.INT, value: p.value } };
    case 'uint':
      return { field: p.field, value: { tag: TYPED_PARAM.UINT, value: p.value } };
    case 'ullong':
      return { field: p.field, value: { tag: TYPED_PARAM.ULLONG, value: BigInt(p.value) } };
    case 'boolean':
      return { field: p.field, value: { tag: TYPED_PARAM.BOOLEAN, value: p.value ? 1 : 0 } };
  }
}
