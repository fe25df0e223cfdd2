/**
 * A whole response or request body, dispatched by kind: discovery bodies, AdmissionReview, Status, Tables, lists
 * and single objects. For big lists the proxy can stream instead: rewriteListEnvelope for the list without its
 * items, and the function from listItemRewriter for each item as it is parsed (SKIP: leave the item out).
 */
import type { RewriteContext } from './context.ts';
import { rewriteAdmissionReview } from './admission-review.ts';
import { restoreApiGroupDiscoveryList } from './aggregated-discovery.ts';
import { rewriteCustomResource } from './custom-resource.ts';
import { restoreApiGroup, restoreApiGroupList, restoreApiResourceList } from './discovery.ts';
import { isExcluded, type ObjectType } from './exclude.ts';
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
import { objectTypeOf, rewriteObject } from './object.ts';
import { restoreStatus } from './status.ts';
import { isTable, restoreTable } from './table.ts';

type DocRewriter = (doc: JsonRecord, ctx: RewriteContext) => JsonRecord;

function restoreOnly(fn: DocRewriter): DocRewriter {
  return (doc, ctx) => (ctx.dir === 'restore' ? fn(doc, ctx) : doc);
}

/** Bodies that are not API objects with metadata. */
const SPECIAL: ReadonlyMap<string, DocRewriter> = new Map<string, DocRewriter>([
  ['APIGroupList', restoreOnly(restoreApiGroupList)],
  ['APIGroup', restoreOnly(restoreApiGroup)],
  ['APIResourceList', restoreOnly(restoreApiResourceList)],
  ['APIGroupDiscoveryList', restoreOnly(restoreApiGroupDiscoveryList)],
  ['AdmissionReview', (doc, ctx): JsonRecord => rewriteAdmissionReview(doc, ctx)],
  ['Status', restoreStatus],
]);

export function isList(doc: JsonRecord): boolean {
  return Array.isArray(doc['items']) && (getString(doc, 'kind') ?? '').endsWith('List');
}

/** The list itself without its items: exclusion, then apiVersion and kind of custom resource lists. */
export function rewriteListEnvelope(list: JsonRecord, ctx: RewriteContext): JsonRecord | Skip {
  if (isExcluded(list, objectTypeOf(list), ctx)) return SKIP;
  return rewriteCustomResource(list, ctx);
}

/** Kind and apiVersion the items of a list have when they do not say (core lists). */
function itemTypeOf(list: ObjectType): ObjectType {
  const kind = list.kind ?? '';
  return {
    kind: kind.endsWith('List') && kind !== 'List' ? kind.slice(0, -4) : undefined,
    apiVersion: list.apiVersion,
  };
}

/** The per-item function for a list with this kind and apiVersion (as sent, before the envelope is rewritten). */
export function listItemRewriter(list: ObjectType, ctx: RewriteContext): (item: unknown) => unknown {
  const type = itemTypeOf(list);
  return (item) => (isRecord(item) ? rewriteObject(item, ctx, type) : item);
}

export function rewriteList(list: JsonRecord, ctx: RewriteContext): JsonRecord | Skip {
  const rewriteItem = listItemRewriter(objectTypeOf(list), ctx);
  const envelope = rewriteListEnvelope(list, ctx);
  if (isSkip(envelope)) return SKIP;
  return updateArray(envelope, 'items', (items) => mapArray(items, rewriteItem));
}

/**
 * Any body. SKIP means the client must not see it: drop it from a watch, answer a GET with 404 (notFoundStatus).
 * Values that are not objects come back unchanged. `stored` is the requested resource as the API server
 * keeps it (storedTypeOf): the rows of a Table are its objects.
 */
export function rewriteDocument(doc: unknown, ctx: RewriteContext, stored: ObjectType = {}): unknown {
  if (!isRecord(doc)) return doc;
  if (isTable(doc)) return restoreTable(doc, ctx, stored);
  const special = SPECIAL.get(getString(doc, 'kind') ?? '');
  if (special) return special(doc, ctx);
  return isList(doc) ? rewriteList(doc, ctx) : rewriteObject(doc, ctx);
}
