/**
 * What the three patch kinds share: JSON values as JSON.parse leaves them, the JSON type of a value (what
 * Go's reflect.TypeOf tells apart in a decoded document) and the error every customization failure raises.
 */
import { KvError } from '../../kernel/errors/errors.ts';

export type JsonObject = Record<string, unknown>;

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function kindOf(v: unknown): JsonKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object';
}

/** The value without null object members, at any depth (null array items stay). */
export function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, m]) => m !== null)
      .map(([k, m]) => [k, withoutNulls(m)]),
  );
}

export function customizeError(message: string, cause?: unknown): KvError {
  return new KvError('KV_ERR_CUSTOMIZE', message, cause === undefined ? undefined : { cause });
}
