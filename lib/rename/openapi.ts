/**
 * OpenAPI documents on their way back to the client (pure), so that `kubectl explain vm.spec` finds the
 * kubevirt.io kinds: the v3 index (/openapi/v3), a v3 group-version document (/openapi/v3/apis/<g>/<v>) and the
 * v2 document (/openapi/v2, JSON). Renamed groups, kinds, list kinds, schema names, `$ref`s,
 * x-kubernetes-group-version-kind and resource paths get their original names; what has no rule is dropped
 * (openapi-names.ts). Schemas shared with Kubernetes stay as they are.
 */
import type { RewriteContext } from './context.ts';
import {
  getString,
  isRecord,
  isSkip,
  mapArray,
  setOwn,
  updateRecord,
  updateString,
  type JsonRecord,
  type Skip,
} from './json.ts';
import { rewriteGroupKind } from './names.ts';
import { restoreApiPath, restoreSchemaName, restoreText } from './openapi-names.ts';
import { restoreOpenApiUrl } from './openapi-route.ts';

const GVK_KEY = 'x-kubernetes-group-version-kind';
const REF_PREFIXES = ['#/components/schemas/', '#/definitions/'] as const;

function restoreRef(ref: string, ctx: RewriteContext): string {
  for (const prefix of REF_PREFIXES) {
    if (!ref.startsWith(prefix)) continue;
    const name = restoreSchemaName(ref.slice(prefix.length), ctx);
    return isSkip(name) ? ref : prefix + name;
  }
  return ref;
}

function restoreGvk(gvk: JsonRecord, ctx: RewriteContext): JsonRecord {
  const group = getString(gvk, 'group');
  const kind = getString(gvk, 'kind');
  if (group === undefined || kind === undefined) return gvk;
  const next = rewriteGroupKind(group, kind, ctx);
  return next === undefined ? gvk : { ...gvk, group: next.group, kind: next.kind };
}

function restoreGvks(v: unknown, ctx: RewriteContext): unknown {
  if (Array.isArray(v)) return mapArray(v, (g) => (isRecord(g) ? restoreGvk(g, ctx) : g));
  return isRecord(v) ? restoreGvk(v, ctx) : v;
}

/** How far a walk restores: references only, or the human-readable text of a renamed item too. */
interface Walk {
  readonly ctx: RewriteContext;
  readonly text: boolean;
}

const TEXT_KEYS: ReadonlySet<string> = new Set(['operationId', 'description']);

function restoreEntry(key: string, value: unknown, w: Walk): unknown {
  if (key === '$ref' && typeof value === 'string') return restoreRef(value, w.ctx);
  if (key === GVK_KEY) return restoreGvks(value, w.ctx);
  if (w.text && typeof value === 'string' && TEXT_KEYS.has(key)) return restoreText(value, w.ctx);
  if (w.text && key === 'tags' && Array.isArray(value))
    return mapArray(value, (t) => (typeof t === 'string' ? restoreText(t, w.ctx) : t));
  return restoreNode(value, w);
}

/**
 * Every `$ref` and x-kubernetes-group-version-kind below v (and with w.text, operation ids, tags and
 * descriptions); the same reference when nothing changes.
 */
function restoreNode(v: unknown, w: Walk): unknown {
  if (Array.isArray(v)) return mapArray(v, (item) => restoreNode(item, w));
  if (!isRecord(v)) return v;
  let out: JsonRecord | undefined;
  for (const [key, child] of Object.entries(v)) {
    const next = restoreEntry(key, child, w);
    if (next === child) continue;
    out ??= { ...v };
    setOwn(out, key, next);
  }
  return out ?? v;
}

/** A map whose keys are renamed (or dropped) and whose values are restored by fn. */
function restoreKeyed(
  map: JsonRecord,
  rename: (key: string) => string | Skip,
  fn: (value: unknown, renamed: boolean) => unknown,
): JsonRecord {
  const out: JsonRecord = {};
  for (const [key, value] of Object.entries(map)) {
    const next = rename(key);
    if (isSkip(next)) continue;
    setOwn(out, next, fn(value, next !== key));
  }
  return out;
}

function restorePaths(paths: JsonRecord, ctx: RewriteContext): JsonRecord {
  return restoreKeyed(
    paths,
    (p) => restoreApiPath(p, ctx),
    (item, renamed) => (renamed ? restoreNode(item, { ctx, text: true }) : item),
  );
}

function restoreSchemas(schemas: JsonRecord, ctx: RewriteContext): JsonRecord {
  return restoreKeyed(
    schemas,
    (name) => restoreSchemaName(name, ctx),
    (schema, renamed) => restoreNode(schema, { ctx, text: renamed }),
  );
}

/** A v3 group-version document (components.schemas) of a renamed group. */
export function restoreOpenApiV3(doc: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateRecord(doc, 'paths', (p) => restorePaths(p, ctx));
  return updateRecord(out, 'components', (c) => updateRecord(c, 'schemas', (s) => restoreSchemas(s, ctx)));
}

/** The v2 document: every group in one, schemas under definitions. */
export function restoreOpenApiV2(doc: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateRecord(doc, 'paths', (p) => restorePaths(p, ctx));
  return updateRecord(out, 'definitions', (d) => restoreSchemas(d, ctx));
}

/** `apis/<renamed>[/<v>]` → `apis/<group>[/<v>]`; `apis/<original group>[/<v>]` → SKIP. */
function restoreIndexKey(key: string, ctx: RewriteContext): string | Skip {
  const path = restoreApiPath(`/${key}`, ctx);
  return isSkip(path) ? path : path.slice(1);
}

/**
 * The v3 index `{paths: {"apis/<g>/<v>": {serverRelativeURL}}}`: each renamed group-version is listed under
 * its original group and points at the proxy's path for it (keeping the server's hash).
 */
export function restoreOpenApiIndex(index: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateRecord(index, 'paths', (paths) =>
    restoreKeyed(
      paths,
      (key) => restoreIndexKey(key, ctx),
      (entry, renamed) =>
        renamed && isRecord(entry)
          ? updateString(entry, 'serverRelativeURL', (u) => restoreOpenApiUrl(u, ctx))
          : entry,
    ),
  );
}

/** The restore of what an OpenAPI route serves (openapi-route.ts). */
export function restoreOpenApiDocument(
  kind: 'index' | 'v2' | 'group-version',
  doc: JsonRecord,
  ctx: RewriteContext,
): JsonRecord {
  switch (kind) {
    case 'index':
      return restoreOpenApiIndex(doc, ctx);
    case 'v2':
      return restoreOpenApiV2(doc, ctx);
    case 'group-version':
      return restoreOpenApiV3(doc, ctx);
  }
}
