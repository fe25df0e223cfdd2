/**
 * Kubernetes strategic merge patch, as KubeVirt applies a `strategic` customizeComponents patch (patches.go
 * applyPatch → apimachinery strategicpatch.StrategicMergePatch, mergeMap): objects merge member by member,
 * null removes a member, lists merge or are replaced as merge-keys.ts says of the kind. Directives honoured:
 * `$patch: replace|delete` in an object (`merge` is refused there, as apimachinery does), `$patch:
 * delete|replace` items in a merging list, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>` (the merged list takes its order).
 */
import { customizeError, isObject, kindOf, type JsonObject, withoutNulls } from './json.ts';
import { schemaFor, type KindSchema } from './merge-keys.ts';
import { DIRECTIVE, elementKind, mergeList, ordered, type ListField } from './strategic-list.ts';

const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM = '$deleteFromPrimitiveList';
const SET_ORDER = '$setElementOrder';

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** `<prefix>/<field>` → field. */
function fieldOf(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw customizeError(`${key}: expected ${prefix}/<field>`);
  return key.slice(slash + 1);
}

/** A patch value placed where the original has nothing to merge with: items and members that carry a directive go. */
function withoutDirectives(v: unknown): { keep: boolean; value: unknown } {
  if (Array.isArray(v)) return { keep: true, value: itemsWithoutDirectives(v) };
  if (!isObject(v)) return { keep: true, value: v };
  if (Object.hasOwn(v, DIRECTIVE)) return { keep: false, value: undefined };
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(v)) {
    const r = withoutDirectives(member);
    if (r.keep) out[key] = r.value;
  }
  return { keep: true, value: out };
}

function itemsWithoutDirectives(items: readonly unknown[]): unknown[] {
  return items.map(withoutDirectives).flatMap((r) => (r.keep ? [r.value] : []));
}

function place(out: JsonObject, key: string, value: unknown): void {
  const r = withoutDirectives(withoutNulls(value));
  if (r.keep) out[key] = r.value;
  else Reflect.deleteProperty(out, key);
}

/** A list field: merging (with its key from the schema, or as a delete list) or atomic. */
type Field = ListField & { readonly merging: boolean };

/** Where mergeMap is: the kind's schema and the path of the object being merged. */
interface Context {
  readonly schema: KindSchema;
  readonly path: string;
}

const at = (c: Context, path: string): Context => ({ schema: c.schema, path });

function listField(c: Context, path: string, deleteList: boolean): Field {
  const mergeKey = c.schema.lists.get(path);
  return { path, mergeKey: mergeKey ?? '', deleteList, merging: mergeKey !== undefined || deleteList };
}

/** The original list (absent: the patch's, directives removed) with the patch's list (absent: unchanged). */
function mergeLists(c: Context, from: unknown[] | undefined, to: unknown[] | undefined, f: Field): unknown[] {
  if (to === undefined) return from ?? [];
  if (from === undefined) return itemsWithoutDirectives(to);
  return f.merging ? mergeList(from, to, f, (o, p, path) => mergeMap(o, p, at(c, path))) : to;
}

function retainKeys(original: JsonObject, patch: JsonObject, path: string): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const keep = patch[RETAIN_KEYS];
  Reflect.deleteProperty(patch, RETAIN_KEYS);
  if (!Array.isArray(keep)) throw customizeError(`${path}: ${RETAIN_KEYS} is not a list`);
  const kept = new Set(keep);
  const listed = (k: string): boolean => kept.has(k) || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER);
  const stray = Object.keys(patch).find((k) => patch[k] !== null && !listed(k));
  if (stray !== undefined) throw customizeError(`${path}: ${stray} is set but not in ${RETAIN_KEYS}`);
  for (const k of Object.keys(original)) if (!kept.has(k)) Reflect.deleteProperty(original, k);
}

/** Whether the patch's items are a subsequence of the `$setElementOrder` list (deletions aside). */
function orderAgrees(patch: readonly unknown[], order: readonly unknown[], mergeKey: string): boolean {
  const same = (a: unknown, b: unknown): boolean =>
    mergeKey === '' ? a === b : isObject(a) && isObject(b) && a[mergeKey] === b[mergeKey];
  const items = patch.filter((i) => !isObject(i) || !Object.hasOwn(i, DIRECTIVE));
  let at = 0;
  for (const wanted of order) if (at < items.length && same(items[at], wanted)) at++;
  return at === items.length;
}

const asList = (v: unknown, path: string): unknown[] | undefined => {
  if (v === undefined || Array.isArray(v)) return v;
  throw customizeError(`${path} is not a list`);
};

/** `$setElementOrder/<field>`: the field's list merged, then ordered as the directive lists. */
function setOrder(original: JsonObject, patch: JsonObject, key: string, c: Context): void {
  const order = patch[key];
  Reflect.deleteProperty(patch, key);
  const name = fieldOf(key, SET_ORDER);
  const f = listField(c, join(c.path, name), false);
  if (!Array.isArray(order)) throw customizeError(`${f.path}: ${key} is not a list`);
  const from = asList(Object.hasOwn(original, name) ? original[name] : undefined, f.path);
  const to = asList(Object.hasOwn(patch, name) ? patch[name] : undefined, f.path);
  if (!orderAgrees(to ?? [], order, f.mergeKey))
    throw customizeError(`${f.path}: the patch's order differs from ${key}`);
  if (from === undefined && to === undefined) return;
  const merged = mergeLists(c, from, to, f);
  const kind = elementKind([from ?? [], to ?? []], f.path);
  original[name] = ordered(merged, order, from ?? [], { ...f, kind });
  Reflect.deleteProperty(patch, name);
}

function mergeField(out: JsonObject, key: string, patchValue: unknown, c: Context): void {
  const deleteList = key.startsWith(DELETE_FROM);
  const name = deleteList ? fieldOf(key, DELETE_FROM) : key;
  if (patchValue === null) {
    Reflect.deleteProperty(out, name);
    return;
  }
  const original = out[name];
  if (!Object.hasOwn(out, name) || kindOf(original) !== kindOf(patchValue)) {
    if (!deleteList) place(out, name, patchValue);
    return;
  }
  const path = join(c.path, name);
  if (isObject(original) && isObject(patchValue)) {
    out[name] = c.schema.replaced.has(path) ? patchValue : mergeMap(original, patchValue, at(c, path));
  } else if (Array.isArray(original) && Array.isArray(patchValue)) {
    out[name] = mergeLists(c, original, patchValue, listField(c, path, deleteList));
  } else place(out, name, patchValue);
}

/** strategicpatch mergeMap: merges patch into original in place (both are copies) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, c: Context): JsonObject {
  const directive = patch[DIRECTIVE];
  if (directive === 'replace') {
    Reflect.deleteProperty(patch, DIRECTIVE);
    return patch;
  }
  if (directive === 'delete') return {};
  if (directive !== undefined)
    throw customizeError(
      `${c.path || 'the object'}: unknown $patch ${JSON.stringify(directive)} in an object`,
    );
  retainKeys(original, patch, c.path);
  for (const key of Object.keys(patch)) if (key.startsWith(SET_ORDER)) setOrder(original, patch, key, c);
  for (const [key, value] of Object.entries(patch)) mergeField(original, key, value, c);
  return original;
}

/** The object of the given kind with the strategic merge patch applied; neither input is touched. */
export function applyStrategicMerge(doc: JsonObject, patch: unknown, kind: string): JsonObject {
  const schema = schemaFor(kind);
  if (schema === undefined) throw customizeError(`strategic merge patches of a ${kind} are not supported`);
  if (!isObject(patch)) throw customizeError('a strategic merge patch is a JSON object');
  return mergeMap(structuredClone(doc), structuredClone(patch), { schema, path: '' });
}
