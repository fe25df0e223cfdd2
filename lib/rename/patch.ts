/**
 * Patch bodies on their way to the API server. Merge, strategic merge and apply patches are partial objects:
 * they get the target's kind/apiVersion (and a CRD's name) for the time of the rewrite, so the same object
 * rewriters apply, and lose them again. A JSON patch operation is rewritten by placing its value at its path in
 * an otherwise empty object, rewriting that, and reading value and (possibly renamed) path back: so
 * `/metadata/labels/kubevirt.io~1vm`, `/spec/template/metadata/labels`, `/metadata/finalizers/0`, a CRD's
 * `/spec` or a whole-object value all follow the rules of the kind.
 */
import type { RewriteContext } from './context.ts';
import {
  getRecord,
  getString,
  isRecord,
  isSkip,
  mapRecords,
  setOwn,
  withoutFields,
  type JsonRecord,
} from './json.ts';
import { formatPointer, isIndexSegment, parsePointer } from './json-pointer.ts';
import { rewriteObjectBody } from './object.ts';
import type { PatchTarget } from './patch-target.ts';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

interface Injected {
  readonly doc: JsonRecord;
  readonly rootKeys: readonly string[];
  readonly metadataKeys: readonly string[];
  readonly metadataAdded: boolean;
}

function inject(doc: JsonRecord, target: PatchTarget): Injected {
  const rootKeys = (['kind', 'apiVersion'] as const).filter(
    (k) => target[k] !== undefined && !Object.hasOwn(doc, k),
  );
  let out = doc;
  if (rootKeys.length > 0) {
    out = { ...doc };
    for (const k of rootKeys) out[k] = target[k];
  }
  const none: Injected = { doc: out, rootKeys, metadataKeys: [], metadataAdded: false };
  if (target.crdName === undefined) return none;
  const meta = out['metadata'];
  if (meta !== undefined && (!isRecord(meta) || Object.hasOwn(meta, 'name'))) return none;
  return {
    doc: { ...out, metadata: { ...meta, name: target.crdName } },
    rootKeys,
    metadataKeys: ['name'],
    metadataAdded: meta === undefined,
  };
}

function strip(doc: JsonRecord, inj: Injected): JsonRecord {
  let out = withoutFields(doc, inj.rootKeys);
  if (inj.metadataAdded) return withoutFields(out, ['metadata']);
  const meta = getRecord(out, 'metadata');
  if (meta !== undefined && inj.metadataKeys.length > 0)
    out = { ...out, metadata: withoutFields(meta, inj.metadataKeys) };
  return out;
}

/** A merge, strategic merge or apply patch body (a partial object). */
function rewriteMergePatch(patch: JsonRecord, target: PatchTarget, ctx: RewriteContext): JsonRecord {
  const inj = inject(patch, target);
  const out = rewriteObjectBody(inj.doc, getString(inj.doc, 'kind'), ctx);
  if (isSkip(out) || out === inj.doc) return patch;
  const stripped = strip(out, inj);
  return sameFields(stripped, patch) ? patch : stripped;
}

/** True when both objects hold the very same values under the same keys (nothing but the injected parts changed). */
function sameFields(a: JsonRecord, b: JsonRecord): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const [x, y] = [a[k], b[k]];
    if (x === y) return true;
    return k === 'metadata' && isRecord(x) && isRecord(y) && sameFields(x, y);
  });
}

function embed(segments: readonly string[], value: unknown): unknown {
  let node = value;
  for (let i = segments.length - 1; i >= 0; i--) {
    const seg = segments[i] as string;
    if (isIndexSegment(seg)) node = [node];
    else {
      const obj: JsonRecord = {};
      setOwn(obj, seg, node);
      node = obj;
    }
  }
  return node;
}

/** Follows the segments through the rewritten object; a missing key is replaced by the single new key there. */
function extract(
  doc: unknown,
  segments: readonly string[],
  inj: Injected,
): { segments: string[]; value: unknown } | undefined {
  let node = doc;
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    if (Array.isArray(node)) {
      node = node[0];
      out.push(seg);
      continue;
    }
    if (!isRecord(node)) return undefined;
    let key = seg;
    if (!Object.hasOwn(node, seg)) {
      const ignore = i === 0 ? inj.rootKeys : i === 1 && segments[0] === 'metadata' ? inj.metadataKeys : [];
      const candidates = Object.keys(node).filter((k) => !ignore.includes(k));
      if (candidates.length !== 1 || i === 0) return undefined;
      key = candidates[0] as string;
    }
    node = node[key];
    out.push(key);
  }
  return { segments: out, value: node };
}

function rewriteAtPointer(
  pointer: string,
  value: unknown,
  target: PatchTarget,
  ctx: RewriteContext,
): { pointer: string; value: unknown } {
  const same = { pointer, value };
  const segments = parsePointer(pointer);
  if (segments === undefined) return same;
  if (segments.length === 0)
    return isRecord(value) ? { pointer, value: rewriteMergePatch(value, target, ctx) } : same;
  const doc = embed(segments, value);
  if (!isRecord(doc)) return same;
  const inj = inject(doc, target);
  const out = rewriteObjectBody(inj.doc, getString(inj.doc, 'kind'), ctx);
  if (isSkip(out) || out === inj.doc) return same;
  const found = extract(out, segments, inj);
  return found === undefined ? same : { pointer: formatPointer(found.segments), value: found.value };
}

function rewriteJsonPatchOp(op: JsonRecord, target: PatchTarget, ctx: RewriteContext): JsonRecord {
  let out = op;
  const path = getString(op, 'path');
  if (path !== undefined) {
    const hasValue = Object.hasOwn(op, 'value');
    const next = rewriteAtPointer(path, hasValue ? op['value'] : null, target, ctx);
    if (next.pointer !== path) out = { ...out, path: next.pointer };
    if (hasValue && next.value !== op['value']) out = { ...out, value: next.value };
  }
  const from = getString(op, 'from');
  if (from !== undefined) {
    const next = rewriteAtPointer(from, null, target, ctx);
    if (next.pointer !== from) out = { ...out, from: next.pointer };
  }
  return out;
}

/** A parsed patch body of the given type; anything of an unexpected shape comes back unchanged. */
export function rewritePatch(
  patch: unknown,
  type: PatchType,
  target: PatchTarget,
  ctx: RewriteContext,
): unknown {
  if (type === 'json')
    return Array.isArray(patch) ? mapRecords(patch, (op) => rewriteJsonPatchOp(op, target, ctx)) : patch;
  return isRecord(patch) ? rewriteMergePatch(patch, target, ctx) : patch;
}
