/**
 * Rewriting one object (a list item) or one watch event given as JSON text, parsing and re-encoding only what
 * the rewrite touches. A custom resource the rules name (VirtualMachine, VMI... on either side) is rewritten in
 * its apiVersion, kind and metadata only (custom-resource.ts, metadata.ts): those three members are parsed
 * (managedFields[].fieldsV1 excepted: the rewrite never looks into it), and spec, status and the rest are
 * written back as the bytes that came, unchecked. Any other object is parsed whole, and only its changed
 * members are encoded again. Throws when what is parsed is not valid JSON.
 */
import type { RewriteContext } from '../../rename/context.ts';
import type { ObjectType } from '../../rename/exclude.ts';
import { isRecord, isSkip, SKIP, type JsonRecord, type Skip } from '../../rename/json.ts';
import { rewriteWatchEvent } from '../../rename/watch.ts';
import {
  escapedQuote,
  rawMember,
  scanObject,
  valueSpan,
  withMembers,
  type ObjectText,
} from './object-text.ts';

function parsedMember(o: ObjectText, key: string): unknown {
  const raw = rawMember(o, key);
  return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
}

/** Members a custom resource's rewrite touches; the scan of the object stops once it has them. */
const HEAD = ['apiVersion', 'kind', 'metadata'];

/**
 * Opaque stand-in for a managedFields entry's fieldsV1 while its metadata goes through the rewriter (which
 * leaves fieldsV1 alone): a string no object holds, numbered, put back as the raw text afterwards.
 */
const PLACEHOLDER = '\u0000kv-raw-fieldsV1:';
const ENCODED_PLACEHOLDER = /"\\u0000kv-raw-fieldsV1:(\d+)"/g;
const FIELDS_V1 = '"fieldsV1":';

/**
 * The metadata text with the value of every member named fieldsV1 (managedFields entries hold them) cut out
 * into `raws`, a placeholder string in its place. `"fieldsV1":` with an unescaped quote can only be a member
 * name in valid JSON, so a text search finds them all without scanning labels, annotations and the rest again.
 */
function withoutFieldsV1(meta: string, raws: string[]): string {
  let out = '';
  let last = 0;
  for (let at = meta.indexOf(FIELDS_V1); at !== -1; at = meta.indexOf(FIELDS_V1, at + 1)) {
    if (escapedQuote(meta, at)) continue;
    const span = valueSpan(meta, at + FIELDS_V1.length);
    if (span === undefined) return meta;
    out += meta.slice(last, span[0]) + JSON.stringify(PLACEHOLDER + String(raws.length));
    raws.push(meta.slice(span[0], span[1]));
    last = span[1];
    at = span[1] - 1;
  }
  return last === 0 ? meta : out + meta.slice(last);
}

interface Head {
  readonly obj: JsonRecord;
  /** The fieldsV1 texts cut out of metadata. */
  readonly raws: readonly string[];
}

/** apiVersion, kind and metadata, parsed, when the object is a custom resource with rules; else undefined. */
function customResourceHead(objectText: ObjectText, ctx: RewriteContext): Head | undefined {
  const apiVersion = parsedMember(objectText, 'apiVersion');
  const kind = parsedMember(objectText, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const slash = apiVersion.lastIndexOf('/');
  if (slash === -1) return undefined;
  const key = `${apiVersion.slice(0, slash)}/${kind}`;
  const entry = ctx.rules.kindByRenamed.get(key) ?? ctx.rules.kindByOriginal.get(key);
  if (entry === undefined || entry.isList) return undefined;
  const obj: JsonRecord = { apiVersion, kind };
  const raws: string[] = [];
  const metadata = rawMember(objectText, 'metadata');
  if (metadata !== undefined) obj['metadata'] = JSON.parse(withoutFieldsV1(metadata, raws));
  return { obj, raws };
}

/** The object text with the members that differ between `before` and `after` encoded again. */
function merged(o: ObjectText, before: JsonRecord, after: JsonRecord): string {
  if (after === before) return o.text;
  const changed = new Map<string, unknown>();
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (after[key] !== before[key]) changed.set(key, after[key]);
  return withMembers(o, changed);
}

function whole(text: string, rewrite: (obj: unknown) => unknown): string | Skip {
  const doc: unknown = JSON.parse(text);
  const out = rewrite(doc);
  if (isSkip(out)) return SKIP;
  if (out === doc) return text;
  if (!isRecord(doc) || !isRecord(out)) return JSON.stringify(out);
  const o = scanObject(text);
  return o === undefined ? JSON.stringify(out) : merged(o, doc, out);
}

/**
 * `text` rewritten by `rewrite` (a rewriter of parsed JSON: same reference when nothing changes, SKIP to leave
 * the object out). The very same string when nothing changed.
 */
export function rewriteObjectText(
  text: string,
  ctx: RewriteContext,
  rewrite: (obj: unknown) => unknown,
): string | Skip {
  const o = scanObject(text, HEAD);
  const head = o === undefined ? undefined : customResourceHead(o, ctx);
  if (o === undefined || head === undefined) return whole(text, rewrite);
  const out = rewrite(head.obj);
  if (isSkip(out)) return SKIP;
  if (!isRecord(out)) return whole(text, rewrite);
  const result = merged(o, head.obj, out);
  if (head.raws.length === 0 || result === o.text) return result;
  return result.replace(ENCODED_PLACEHOLDER, (_m, n: string) => head.raws[Number(n)] ?? 'null');
}

/** How the API server writes every watch event: type first, then the object, nothing else. */
const EVENT_HEAD = /^\{"type":"([A-Za-z]*)","object":/;

/**
 * One watch event line restored (SKIP: an excluded object). `stored` is the watched resource as the API server
 * keeps it (rewriteWatchEvent). Throws on invalid JSON or an unknown type.
 */
export function restoreEventText(line: string, ctx: RewriteContext, stored?: ObjectType): string | Skip {
  const m = EVENT_HEAD.exec(line);
  if (m === null || !line.endsWith('}')) {
    const ev: unknown = JSON.parse(line);
    if (!isRecord(ev)) throw new TypeError('a watch event must be a JSON object');
    const out = rewriteWatchEvent(ev, ctx, stored);
    if (isSkip(out)) return SKIP;
    return out === ev ? line : JSON.stringify(out);
  }
  const type = m[1] ?? '';
  const objectText = line.slice(m[0].length, -1);
  const out = rewriteObjectText(objectText, ctx, (obj) => {
    if (!isRecord(obj)) return rewriteWatchEvent({ type, object: obj }, ctx, stored) === SKIP ? SKIP : obj;
    const ev = rewriteWatchEvent({ type, object: obj }, ctx, stored);
    return isSkip(ev) ? SKIP : ev['object'];
  });
  if (isSkip(out)) return SKIP;
  return out === objectText ? line : `${m[0]}${out}}`;
}
