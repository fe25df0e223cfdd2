/**
 * Object metadata: labels, annotations, finalizers and ownerReferences, on every object that goes through the
 * rewriter. Strategic-merge-patch directives on finalizers are rewritten the same way.
 */
import type { RewriteContext } from './context.ts';
import { rewriteVersionKindRef } from './gvk.ts';
import { mapRecords, mapStrings, setOwn, updateArray, updateRecord, type JsonRecord } from './json.ts';
import type { NameRules } from './rules/name-rules.ts';
import type { Direction } from './rules/types.ts';

/** Copy-on-first-change builder: the rewritten key wins over a key that passed through unchanged. */
class MapBuilder {
  private readonly out: JsonRecord = {};
  private readonly rewritten = new Set<string>();
  constructor(source: JsonRecord, keys: readonly string[], upTo: number) {
    for (let j = 0; j < upTo; j++) setOwn(this.out, keys[j] as string, source[keys[j] as string]);
  }
  add(key: string, value: unknown, changed: boolean): void {
    if (changed) this.rewritten.add(key);
    else if (this.rewritten.has(key)) return;
    setOwn(this.out, key, value);
  }
  result(): JsonRecord {
    return this.out;
  }
}

/**
 * Rewrites the keys (and key=value pairs) of a string map. The same map when nothing changes. When a rewritten
 * key collides with a key that passed through unchanged, the rewritten one wins. Non-string values (null in a
 * merge patch) keep their value; their key is rewritten alone.
 */
export function rewriteKeyMap(map: JsonRecord, rules: NameRules, dir: Direction): JsonRecord {
  const keys = Object.keys(map);
  let builder: MapBuilder | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = map[key];
    const isString = typeof value === 'string';
    const [nextKey, nextValue] = rules.rewrite(dir, key, isString ? value : undefined);
    const next = isString ? nextValue : value;
    if (builder === undefined && nextKey === key && next === value) continue;
    builder ??= new MapBuilder(map, keys, i);
    builder.add(nextKey, next, nextKey !== key);
  }
  return builder?.result() ?? map;
}

function rewriteKeyList(list: unknown[], rules: NameRules, dir: Direction): unknown[] {
  return mapStrings(list, (key) => rules.rewriteKey(dir, key));
}

export function rewriteLabelMap(map: JsonRecord, ctx: RewriteContext): JsonRecord {
  return rewriteKeyMap(map, ctx.rules.labels, ctx.dir);
}

function rewriteAnnotationMap(map: JsonRecord, ctx: RewriteContext): JsonRecord {
  return rewriteKeyMap(map, ctx.rules.annotations, ctx.dir);
}

function rewriteOwnerReferences(refs: unknown[], ctx: RewriteContext): unknown[] {
  return mapRecords(refs, (ref) => rewriteVersionKindRef(ref, ctx));
}

const FINALIZER_LISTS = ['finalizers', '$setElementOrder/finalizers', '$deleteFromPrimitiveList/finalizers'];

export function rewriteMetadata(meta: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateRecord(meta, 'labels', (m) => rewriteLabelMap(m, ctx));
  out = updateRecord(out, 'annotations', (m) => rewriteAnnotationMap(m, ctx));
  for (const key of FINALIZER_LISTS) {
    out = updateArray(out, key, (l) => rewriteKeyList(l, ctx.rules.finalizers, ctx.dir));
  }
  return updateArray(out, 'ownerReferences', (refs) => rewriteOwnerReferences(refs, ctx));
}

export function rewriteObjectMetadata<T extends JsonRecord>(obj: T, ctx: RewriteContext): T {
  return updateRecord(obj, 'metadata', (meta) => rewriteMetadata(meta, ctx));
}
