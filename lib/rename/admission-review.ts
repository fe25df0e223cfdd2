/**
 * AdmissionReviews through the webhook proxy.
 * - restore (API server → webhook): request.{kind,requestKind} {group,kind}, request.{resource,requestResource}
 *   {group,resource}, request.object and request.oldObject (fully restored, never excluded).
 * - rename (webhook → API server): response.patch (base64 JSONPatch) is decoded, rewritten like any JSON patch
 *   for the reviewed kind, and encoded again. A patch that does not decode is passed through as it is.
 */
import type { RewriteContext } from './context.ts';
import { getRecord, getString, isSkip, updateRecord, type JsonRecord } from './json.ts';
import { resourceEntryOf, rewriteGroupKind, pluralOf } from './names.ts';
import { rewriteObjectBody } from './object.ts';
import { rewritePatch } from './patch.ts';
import type { PatchTarget } from './patch-target.ts';

function rewriteGroupVersionKind(gvk: JsonRecord, ctx: RewriteContext): JsonRecord {
  const next = rewriteGroupKind(getString(gvk, 'group') ?? '', getString(gvk, 'kind') ?? '', ctx);
  return next === undefined ? gvk : { ...gvk, group: next.group, kind: next.kind };
}

function rewriteGroupVersionResource(gvr: JsonRecord, ctx: RewriteContext): JsonRecord {
  const group = getString(gvr, 'group') ?? '';
  const entry = resourceEntryOf(group, getString(gvr, 'resource') ?? '', ctx);
  if (entry === undefined) return gvr;
  const nextGroup = ctx.dir === 'rename' ? entry.group.renamed : entry.group.group;
  return { ...gvr, group: nextGroup, resource: pluralOf(entry, ctx.dir, ctx.rules) };
}

function rewriteReviewObject(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = rewriteObjectBody(obj, getString(obj, 'kind'), ctx);
  return isSkip(out) ? obj : out;
}

function rewriteAdmissionRequest(request: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = request;
  for (const key of ['kind', 'requestKind'])
    out = updateRecord(out, key, (gvk) => rewriteGroupVersionKind(gvk, ctx));
  for (const key of ['resource', 'requestResource']) {
    out = updateRecord(out, key, (gvr) => rewriteGroupVersionResource(gvr, ctx));
  }
  for (const key of ['object', 'oldObject'])
    out = updateRecord(out, key, (obj) => rewriteReviewObject(obj, ctx));
  return out;
}

function decodePatch(b64: string): unknown {
  try {
    return JSON.parse(Buffer.from(b64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

function rewriteAdmissionResponse(
  response: JsonRecord,
  target: PatchTarget,
  ctx: RewriteContext,
): JsonRecord {
  const b64 = getString(response, 'patch');
  if (getString(response, 'patchType') !== 'JSONPatch' || b64 === undefined || b64 === '') return response;
  const patch = decodePatch(b64);
  if (!Array.isArray(patch)) return response;
  const next = rewritePatch(patch, 'json', target, ctx);
  if (next === patch) return response;
  return { ...response, patch: Buffer.from(JSON.stringify(next), 'utf8').toString('base64') };
}

/** The reviewed object's type as the webhook saw it, from request.kind (when the review still carries it). */
function reviewedTypeOf(review: JsonRecord): PatchTarget {
  const kind = getRecord(getRecord(review, 'request') ?? {}, 'kind');
  if (kind === undefined) return {};
  const group = getString(kind, 'group') ?? '';
  const version = getString(kind, 'version') ?? '';
  return { kind: getString(kind, 'kind') ?? '', apiVersion: group === '' ? version : `${group}/${version}` };
}

/**
 * restore: the request part; rename: the response patch. `reviewed` is the reviewed object's kind and
 * apiVersion on the webhook's (original) side when the proxy knows it from the request.
 */
export function rewriteAdmissionReview(
  review: JsonRecord,
  ctx: RewriteContext,
  reviewed?: PatchTarget,
): JsonRecord {
  if (ctx.dir === 'restore')
    return updateRecord(review, 'request', (req) => rewriteAdmissionRequest(req, ctx));
  const target = reviewed ?? reviewedTypeOf(review);
  return updateRecord(review, 'response', (resp) => rewriteAdmissionResponse(resp, target, ctx));
}
