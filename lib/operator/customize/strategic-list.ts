/**
 * Lists in a strategic merge patch (apimachinery strategicpatch mergeSlice and the order it leaves,
 * normalizeElementOrder/mergeSortedSlice): a merging list of objects merges items with the same merge key,
 * deletes the items a `$patch: delete` item names, is replaced by the other items after a `$patch: replace`
 * item, and appends the rest; a merging list of scalars is a set union (or a difference, for
 * `$deleteFromPrimitiveList`). The result lists the patch's items in the patch's order, with the items only
 * the original had put back among them by their original order.
 */
import { customizeError, isObject, kindOf, type JsonKind, type JsonObject } from './json.ts';

export const DIRECTIVE = '$patch';

/** Merges a patch item into the original item with the same merge key (the caller's mergeMap). */
type MergeItem = (original: JsonObject, patch: JsonObject, path: string) => JsonObject;

export interface ListField {
  readonly path: string;
  /** '' for a list of scalars. */
  readonly mergeKey: string;
  /** `$deleteFromPrimitiveList/<field>`: the patch names scalars to remove. */
  readonly deleteList: boolean;
}

const noMergeKey = (path: string, mergeKey: string): Error =>
  customizeError(`${path}: an item has no merge key "${mergeKey}"`);

/** The one JSON type of every item of the lists. */
export function elementKind(lists: readonly (readonly unknown[])[], path: string): JsonKind {
  const kinds = new Set(lists.flat().map(kindOf));
  if (kinds.has('array')) throw customizeError(`${path}: lists of lists cannot be merged`);
  if (kinds.size > 1) throw customizeError(`${path}: the items of the list are not all of one type`);
  return [...kinds][0] ?? 'null';
}

/** How the items of one list are told apart. */
type ListShape = Pick<ListField, 'path' | 'mergeKey'> & { readonly kind: JsonKind };

/** What identifies an item: its merge key's value for objects, the item itself for scalars. */
function identity(item: unknown, s: ListShape): unknown {
  if (s.kind !== 'object') return item;
  return isObject(item) ? item[s.mergeKey] : undefined;
}

function indexIn(order: readonly unknown[], item: unknown, s: ListShape): number {
  const id = identity(item, s);
  return order.findIndex((o) => identity(o, s) === id);
}

/** The items sorted by where order has them (stable; those it lacks go last). */
function sortBy(items: readonly unknown[], order: readonly unknown[], s: ListShape): unknown[] {
  if (
    s.kind === 'object' &&
    [...items, ...order].some((i) => !isObject(i) || !Object.hasOwn(i, s.mergeKey))
  ) {
    throw noMergeKey(s.path, s.mergeKey);
  }
  const at = (item: unknown): number => {
    const i = indexIn(order, item, s);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  return [...items].sort((a, b) => (at(a) === at(b) ? 0 : at(a) < at(b) ? -1 : 1));
}

/**
 * Inserts the original-only items (left) among the patch's (right): an item on the left goes first only when
 * both items are in the original and it came before there.
 */
function mergeSorted(
  left: unknown[],
  right: unknown[],
  serverOrder: readonly unknown[],
  s: ListShape,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = indexIn(serverOrder, left[i], s);
      const ri = indexIn(serverOrder, right[j], s);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++] : right[j++]);
    }
  }
  return out;
}

/**
 * The merged items in their final order: those `order` names (the patch, or `$setElementOrder`) in its order,
 * the others by their place in the original.
 */
export function ordered(
  merged: readonly unknown[],
  order: readonly unknown[],
  original: readonly unknown[],
  s: ListShape,
): unknown[] {
  const named = (item: unknown): boolean => indexIn(order, item, s) >= 0;
  const inPatch = sortBy(merged.filter(named), order, s);
  const serverOnly = sortBy(
    merged.filter((i) => !named(i)),
    original,
    s,
  );
  return mergeSorted(serverOnly, inPatch, original, s);
}

/** The `$patch` items: deletions applied to the original, a replacement taking its place. */
function specialItems(original: unknown[], patch: JsonObject[], f: ListField): [unknown[], JsonObject[]] {
  const rest: JsonObject[] = [];
  let server = original;
  let replace = false;
  for (const item of patch) {
    const directive = item[DIRECTIVE];
    if (directive === undefined) rest.push(item);
    else if (directive === 'delete') {
      if (!Object.hasOwn(item, f.mergeKey)) throw noMergeKey(f.path, f.mergeKey);
      server = server.filter((o) => !(isObject(o) && o[f.mergeKey] === item[f.mergeKey]));
    } else if (directive === 'replace') replace = true;
    else throw customizeError(`${f.path}: unknown $patch ${JSON.stringify(directive)} in a list`);
  }
  return replace ? [rest, []] : [server, rest];
}

function mergeItems(original: unknown[], patch: JsonObject[], f: ListField, mergeItem: MergeItem): unknown[] {
  const out = [...original];
  for (const item of patch) {
    if (!Object.hasOwn(item, f.mergeKey)) throw noMergeKey(f.path, f.mergeKey);
    const i = out.findIndex(
      (o) => isObject(o) && Object.hasOwn(o, f.mergeKey) && o[f.mergeKey] === item[f.mergeKey],
    );
    const found = i < 0 ? undefined : out[i];
    if (isObject(found)) out[i] = mergeItem(found, item, `${f.path}[]`);
    else out.push(item);
  }
  return out;
}

/** A merging list with the patch's list applied (strategicpatch mergeSlice). */
export function mergeList(
  original: unknown[],
  patch: unknown[],
  f: ListField,
  mergeItem: MergeItem,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch], f.path);
  if (kind !== 'object') {
    if (f.deleteList) return original.filter((v) => !patch.includes(v));
    return ordered([...new Set([...original, ...patch])], patch, original, { ...f, kind });
  }
  if (f.mergeKey === '')
    throw customizeError(`${f.path}: a list of objects without a merge key cannot merge`);
  const [server, items] = specialItems(original, patch.filter(isObject), f);
  return ordered(mergeItems(server, items, f, mergeItem), items, server, { ...f, kind });
}
