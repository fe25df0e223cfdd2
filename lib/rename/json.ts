/**
 * Copy-on-write helpers over parsed JSON. Rewriters never mutate their input: a function that changes nothing
 * returns the very same reference, and a change copies only the objects on the path to it (structural sharing),
 * so a list of 25,600 Pods is rewritten item by item without cloning what stays the same.
 */

export type JsonRecord = Record<string, unknown>;

/** Marker returned instead of a document that the client must not see (an excluded object). */
export interface Skip {
  readonly skip: true;
}
export const SKIP: Skip = Object.freeze({ skip: true });

export function isSkip(v: unknown): v is Skip {
  return v === SKIP;
}

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function getString(obj: JsonRecord, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

export function getRecord(obj: JsonRecord, key: string): JsonRecord | undefined {
  const v = obj[key];
  return isRecord(v) ? v : undefined;
}

/** obj with obj[key] = value; obj itself when the value is unchanged. */
function withField<T extends JsonRecord>(obj: T, key: string, value: unknown): T {
  if (obj[key] === value) return obj;
  return { ...obj, [key]: value };
}

/** Applies fn to obj[key] when it is an object; obj itself when fn changes nothing. */
export function updateRecord<T extends JsonRecord>(
  obj: T,
  key: string,
  fn: (v: JsonRecord) => JsonRecord,
): T {
  const v = obj[key];
  if (!isRecord(v)) return obj;
  return withField(obj, key, fn(v));
}

/** Applies fn to obj[key] when it is a string. */
export function updateString<T extends JsonRecord>(obj: T, key: string, fn: (v: string) => string): T {
  const v = obj[key];
  if (typeof v !== 'string') return obj;
  return withField(obj, key, fn(v));
}

/** Applies fn to obj[key] when it is an array. */
export function updateArray<T extends JsonRecord>(obj: T, key: string, fn: (v: unknown[]) => unknown[]): T {
  const v = obj[key];
  if (!Array.isArray(v)) return obj;
  return withField(obj, key, fn(v));
}

/** Follows a path of keys through objects; fn rewrites the object at the end. Missing steps: unchanged. */
export function updateIn<T extends JsonRecord>(
  obj: T,
  path: readonly string[],
  fn: (v: JsonRecord) => JsonRecord,
): T {
  const [head, ...rest] = path;
  if (head === undefined) return fn(obj) as T;
  return updateRecord(obj, head, (child) => updateIn(child, rest, fn));
}

/** Maps an array; the same array when every item maps to itself. Items mapped to SKIP are dropped. */
export function mapArray(items: unknown[], fn: (item: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const next = fn(item);
    if (out === undefined && next === item) continue;
    out ??= items.slice(0, i);
    if (!isSkip(next)) out.push(next);
  }
  return out ?? items;
}

/** Maps the object items of an array; other items are kept as they are. */
export function mapRecords(items: unknown[], fn: (item: JsonRecord) => unknown): unknown[] {
  return mapArray(items, (item) => (isRecord(item) ? fn(item) : item));
}

/** Maps the string items of an array; other items are kept as they are. */
export function mapStrings(items: unknown[], fn: (item: string) => string): unknown[] {
  return mapArray(items, (item) => (typeof item === 'string' ? fn(item) : item));
}

/** Removes the given keys; obj itself when none is present. */
export function withoutFields<T extends JsonRecord>(obj: T, keys: readonly string[]): T {
  if (!keys.some((k) => Object.hasOwn(obj, k))) return obj;
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k))) as T;
}

/** obj[key] = value as an own data property, also for the key '__proto__' (JSON.parse makes those). */
export function setOwn(obj: JsonRecord, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
