/**
 * Go's json.Unmarshal type checks for the untyped parts of a KubeVirt CR: a value of the wrong JSON type is
 * refused with Go's UnmarshalTypeError text (`json: cannot unmarshal <json> into Go struct field
 * <Struct>.<path> of type <type>`), a duration with time.ParseDuration's text. null is an absent field, as for
 * Go's pointers. Each refusal is a KubeVirtDecodeError that also names the field's JSON path. Pure.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import { goDurationError } from '../../kernel/go/strconv.ts';
import type { FieldError } from '../field-error.ts';
import { parseGoDuration } from '../subresources/go-duration.ts';

export type Json = Readonly<Record<string, unknown>>;

/** A KubeVirt CR value json.Unmarshal refuses: Go's text as the message, the JSON path as `field`. */
export class KubeVirtDecodeError extends KvError implements FieldError {
  readonly field: string;
  readonly detail: string;
  constructor(field: string, message: string) {
    super('KV_ERR_DECODE', message);
    this.field = field;
    this.detail = message;
  }
}

export interface At {
  /** The Go struct holding the field (UnmarshalTypeError.Struct). */
  readonly struct: string;
  /** The JSON path from the root (UnmarshalTypeError.Field). */
  readonly path: string;
}

export const at = (struct: string, path: string): At => ({ struct, path });
export const under = (parent: At, struct: string, name: string): At => at(struct, `${parent.path}.${name}`);

/** `o` without its undefined fields (what Go leaves nil). */
export function compact<T extends object>(o: { [K in keyof T]-?: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function refuse(where: At, what: string, goType: string): never {
  throw new KubeVirtDecodeError(
    where.path,
    `json: cannot unmarshal ${what} into Go struct field ${where.struct}.${where.path} of type ${goType}`,
  );
}

function mismatch(v: unknown, where: At, goType: string): never {
  return refuse(where, jsonKind(v), goType);
}

export function asObject(v: unknown, where: At, goType: string): Json | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' && !Array.isArray(v) ? (v as Json) : mismatch(v, where, goType);
}

export function asString(v: unknown, where: At, goType = 'string'): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : mismatch(v, where, goType);
}

export function asStrings(v: unknown, where: At): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return mismatch(v, where, '[]string');
  return v.map((s) => asString(s, where) ?? '');
}

/** A JSON object of strings (Go's map[string]string). */
export function asStringMap(v: unknown, where: At): Record<string, string> | undefined {
  const o = asObject(v, where, 'map[string]string');
  if (o === undefined) return undefined;
  return Object.fromEntries(Object.entries(o).map(([k, s]) => [k, asString(s, where) ?? '']));
}

export function asList(v: unknown, where: At, goType: string): readonly unknown[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? (v as readonly unknown[]) : mismatch(v, where, goType);
}

export function asBool(v: unknown, where: At): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'boolean' ? v : mismatch(v, where, 'bool');
}

/** Nanoseconds of a metav1.Duration. */
export function asDuration(v: unknown, where: At): number | undefined {
  const text = asString(v, where);
  if (text === undefined) return undefined;
  const ns = parseGoDuration(text);
  if (ns === undefined) throw new KubeVirtDecodeError(where.path, goDurationError(text));
  return ns;
}

const INT_RANGE: Readonly<Record<'uint8' | 'uint' | 'int64', readonly [number, number]>> = {
  uint8: [0, 255],
  uint: [0, Number.MAX_SAFE_INTEGER],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** A whole number Go's integer type holds (numbers past 2^53 are refused as well). */
export function asInt(v: unknown, where: At, goType: 'uint8' | 'uint' | 'int64'): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') return mismatch(v, where, goType);
  const [min, max] = INT_RANGE[goType];
  if (Number.isInteger(v) && v >= min && v <= max) return v;
  return refuse(where, `number ${String(v)}`, goType);
}
