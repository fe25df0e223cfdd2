/**
 * Go's encoding/json decoding a request body into a KubeVirt options struct, over the JSON value already parsed:
 * a key names a field by its JSON name, exactly or else case-insensitively (the last key naming a field wins);
 * unknown keys are ignored; null leaves a plain field as it was and clears a pointer, a slice or a map (a map
 * decoded again adds to the one decoded before, as Go adds to a map it holds); a value of the wrong kind fails with Go's text, `json: cannot unmarshal <kind> into Go struct field <Struct>.<path> of type
 * <type>` (the first such problem is the one reported). Integers must be whole and in range ("number 1.5"); since
 * the number was parsed already, the literal is JavaScript's spelling of it (Go would quote "1e3" as sent, and
 * refuses "1.0", which JavaScript reads as 1). Pure.
 */

type GoScalar = 'string' | 'bool' | 'int64' | 'uint';

export type GoType =
  | { readonly kind: GoScalar; readonly name?: string; readonly ptr?: true }
  | { readonly kind: 'slice'; readonly of: GoType }
  /** map[string]<of>. */
  | { readonly kind: 'map'; readonly of: GoType }
  | {
      readonly kind: 'struct';
      /** Package-qualified, as Go prints it: "v1.Disk". */
      readonly name: string;
      readonly fields: Readonly<Record<string, GoType>>;
      readonly ptr?: true;
    };

export type GoDecoded =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

interface Ctx {
  /** The innermost struct being decoded and the JSON path of field names from the top. */
  readonly struct: string;
  readonly path: readonly string[];
}

/** Thrown inside the decoder only, to stop at the first problem (the one Go reports). */
class GoTypeMismatch extends Error {}

export function goTypeName(t: GoType): string {
  if (t.kind === 'slice') return `[]${goTypeName(t.of)}`;
  if (t.kind === 'map') return `map[string]${goTypeName(t.of)}`;
  return t.name ?? t.kind;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // 'string', 'number' or 'object'
}

function fail(value: unknown, t: GoType, ctx: Ctx | undefined, kind = jsonKind(value)): never {
  const type = goTypeName(t);
  if (ctx === undefined)
    throw new GoTypeMismatch(`json: cannot unmarshal ${kind} into Go value of type ${type}`);
  const field = `${ctx.struct}.${ctx.path.join('.')}`;
  throw new GoTypeMismatch(`json: cannot unmarshal ${kind} into Go struct field ${field} of type ${type}`);
}

const RANGES = { int64: [-(2 ** 63), 2 ** 63], uint: [0, 2 ** 64] } as const;

function scalar(value: unknown, t: Extract<GoType, { kind: GoScalar }>, ctx: Ctx | undefined): unknown {
  switch (t.kind) {
    case 'string':
      return typeof value === 'string' ? value : fail(value, t, ctx);
    case 'bool':
      return typeof value === 'boolean' ? value : fail(value, t, ctx);
    case 'int64':
    case 'uint': {
      if (typeof value !== 'number') return fail(value, t, ctx);
      const [min, limit] = RANGES[t.kind];
      const fits = Number.isInteger(value) && value >= min && value < limit;
      return fits ? value : fail(value, t, ctx, `number ${String(value)}`);
    }
  }
}

/** The field a key names: the exact JSON name, else the first whose name matches ignoring case. */
function fieldFor(fields: Readonly<Record<string, GoType>>, key: string): string | undefined {
  if (Object.hasOwn(fields, key)) return key;
  const folded = key.toLowerCase();
  return Object.keys(fields).find((f) => f.toLowerCase() === folded);
}

const clears = (t: GoType): boolean => t.kind === 'slice' || t.kind === 'map' || t.ptr === true;

function struct(
  value: unknown,
  t: Extract<GoType, { kind: 'struct' }>,
  ctx: Ctx | undefined,
  into: unknown,
): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(value, t, ctx);
  const out = new Map<string, unknown>(typeof into === 'object' && into !== null ? Object.entries(into) : []);
  const structName = t.name.slice(t.name.lastIndexOf('.') + 1);
  for (const [key, item] of Object.entries(value)) {
    const name = fieldFor(t.fields, key);
    if (name === undefined) continue;
    const ft = t.fields[name] as GoType;
    if (item === null) {
      if (clears(ft)) out.delete(name);
      continue;
    }
    out.set(
      name,
      decode(item, ft, { struct: structName, path: [...(ctx?.path ?? []), name] }, out.get(name)),
    );
  }
  return Object.fromEntries(out);
}

/** A map decoded into the one the field holds already (Go adds to a map it has; a null value is the zero). */
function map(
  value: unknown,
  t: Extract<GoType, { kind: 'map' }>,
  ctx: Ctx | undefined,
  into: unknown,
): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(value, t, ctx);
  const out = new Map<string, unknown>(typeof into === 'object' && into !== null ? Object.entries(into) : []);
  for (const [key, item] of Object.entries(value))
    out.set(key, item === null ? zero(t.of) : decode(item, t.of, ctx));
  return Object.fromEntries(out);
}

function decode(value: unknown, t: GoType, ctx: Ctx | undefined, into?: unknown): unknown {
  if (t.kind === 'struct') return struct(value, t, ctx, into);
  if (t.kind === 'map') return map(value, t, ctx, into);
  if (t.kind !== 'slice') return scalar(value, t, ctx);
  if (!Array.isArray(value)) return fail(value, t, ctx);
  return value.map((item: unknown) => (item === null ? zero(t.of) : decode(item, t.of, ctx)));
}

/** What a null slice element becomes: the element type's zero value. */
function zero(t: GoType): unknown {
  if (t.kind === 'slice' || t.kind === 'map' || t.ptr === true) return null;
  if (t.kind === 'struct') return {};
  return t.kind === 'string' ? '' : t.kind === 'bool' ? false : 0;
}

/**
 * `value` (the parsed body; undefined or null for an empty one) decoded into the struct type `t`: the fields it
 * sets under their JSON names, or Go's error text.
 */
export function goDecode(value: unknown, t: Extract<GoType, { kind: 'struct' }>): GoDecoded {
  if (value === undefined || value === null) return { ok: true, value: {} };
  try {
    return { ok: true, value: decode(value, t, undefined) };
  } catch (e) {
    if (e instanceof GoTypeMismatch) return { ok: false, error: e.message };
    throw e;
  }
}
