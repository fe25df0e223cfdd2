/**
 * meta.k8s.io Table answers (what `kubectl get` asks for with `as=Table`), restored: column definitions and
 * cells are plain values and stay; each row's object is restored as an object of the resource the request
 * targeted, and a row whose object the client must not see is left out. The reverse of the API server's
 * Table conversion (k8s.io/apiserver endpoints/handlers/response.go asTable, which KubeVirt's printer columns
 * feed).
 */
import type { RewriteContext } from './context.ts';
import type { ObjectType } from './exclude.ts';
import {
  getString,
  isRecord,
  isSkip,
  mapArray,
  SKIP,
  updateArray,
  type JsonRecord,
  type Skip,
} from './json.ts';
import { rewriteObject } from './object.ts';
import { joinKey, type RuleIndex } from './rules/rule-index.ts';
import type { ApiTarget } from './target.ts';

const META_VERSIONS: ReadonlySet<string> = new Set(['meta.k8s.io/v1', 'meta.k8s.io/v1beta1']);

function isMeta(doc: JsonRecord, kind: string): boolean {
  return getString(doc, 'kind') === kind && META_VERSIONS.has(getString(doc, 'apiVersion') ?? '');
}

export function isTable(doc: JsonRecord): boolean {
  return isMeta(doc, 'Table');
}

/**
 * Kind and apiVersion the API server keeps the target's objects under: the renamed ones for a resource with
 * rules (asked by either name), the target's own group and version and no kind for any other.
 */
export function storedTypeOf(target: ApiTarget, rules: RuleIndex): ObjectType {
  const key = joinKey(target.group, target.resource);
  const entry = rules.resourceByOriginal.get(key) ?? rules.resourceByRenamed.get(key);
  const group = entry?.group.renamed ?? target.group;
  return {
    kind: entry === undefined ? undefined : rules.rules.kindPrefix + entry.resource.kind,
    apiVersion: group === '' ? target.version : `${group}/${target.version}`,
  };
}

/**
 * A row's object: the full object (includeObject=Object) is restored as any object is; PartialObjectMetadata
 * (includeObject=Metadata, the default) does not name the resource, so its metadata is restored as the stored
 * kind's would be (managedFields versions included) and the row keeps its own kind and apiVersion.
 */
function restoreRowObject(obj: JsonRecord, ctx: RewriteContext, type: ObjectType): JsonRecord | Skip {
  if (!isMeta(obj, 'PartialObjectMetadata') || type.kind === undefined) return rewriteObject(obj, ctx, type);
  const stored = { ...obj, apiVersion: type.apiVersion, kind: type.kind };
  const out = rewriteObject(stored, ctx);
  if (isSkip(out)) return SKIP;
  return out === stored ? obj : { ...out, apiVersion: obj['apiVersion'], kind: obj['kind'] };
}

function restoreRow(row: unknown, ctx: RewriteContext, type: ObjectType): unknown {
  if (!isRecord(row)) return row;
  const obj = row['object'];
  // includeObject=None: no object, nothing to restore or to judge.
  if (!isRecord(obj)) return row;
  const out = restoreRowObject(obj, ctx, type);
  if (isSkip(out)) return SKIP;
  return out === obj ? row : { ...row, object: out };
}

/**
 * The Table with its rows restored (only on restore; the same Table when nothing changes). `rowType` is the
 * targeted resource as stored (storedTypeOf). The Table's own metadata (resourceVersion, continue) stays.
 */
export function restoreTable(table: JsonRecord, ctx: RewriteContext, rowType: ObjectType): JsonRecord {
  if (ctx.dir !== 'restore') return table;
  return updateArray(table, 'rows', (rows) => mapArray(rows, (row) => restoreRow(row, ctx, rowType)));
}
