/**
 * CustomResourceDefinitions of resources with rules: metadata.name `<plural>.<group>`, spec.group and the names
 * (kind, listKind, plural, singular, shortNames, categories) in spec.names and status.acceptedNames. Only fields
 * present are touched, so partial CRDs (patches) work too. On restore, a CRD that exists on the server under its
 * original name is skipped (its restored twin is the one the client sees).
 */
import type { RewriteContext } from './context.ts';
import {
  getRecord,
  getString,
  SKIP,
  updateArray,
  updateIn,
  updateRecord,
  updateString,
  type JsonRecord,
  type Skip,
} from './json.ts';
import { crdEntryOf, rewriteCategories, rewriteCrdName, rewriteShortName } from './names.ts';
import type { ResourceEntry } from './rules/rule-index.ts';

function addOrStrip(value: string, prefix: string, ctx: RewriteContext): string {
  if (ctx.dir === 'rename') return prefix + value;
  return value.startsWith(prefix) ? value.slice(prefix.length) : value;
}

function rewriteCrdNames(names: JsonRecord, entry: ResourceEntry, ctx: RewriteContext): JsonRecord {
  const { kindPrefix, resourceTypePrefix } = ctx.rules.rules;
  let out = names;
  for (const key of ['kind', 'listKind']) out = updateString(out, key, (k) => addOrStrip(k, kindPrefix, ctx));
  for (const key of ['plural', 'singular'])
    out = updateString(out, key, (p) => addOrStrip(p, resourceTypePrefix, ctx));
  out = updateArray(out, 'shortNames', (sn) =>
    sn.map((n) => (typeof n === 'string' ? rewriteShortName(n, ctx) : n)),
  );
  return updateArray(out, 'categories', (cats) => rewriteCategories(cats, entry, ctx));
}

/** spec of a CRD whose rule is known (also the value of a JSON patch on /spec). */
function rewriteCrdSpec(spec: JsonRecord, entry: ResourceEntry, ctx: RewriteContext): JsonRecord {
  const group = ctx.dir === 'rename' ? entry.group.renamed : entry.group.group;
  const out = updateString(spec, 'group', () => group);
  return updateRecord(out, 'names', (n) => rewriteCrdNames(n, entry, ctx));
}

function isOriginalCrdName(name: string, ctx: RewriteContext): boolean {
  const dot = name.indexOf('.');
  return dot > 0 && ctx.rules.groupByOriginal.has(name.slice(dot + 1));
}

export function rewriteCrd(crd: JsonRecord, ctx: RewriteContext): JsonRecord | Skip {
  const name = getString(getRecord(crd, 'metadata') ?? {}, 'name') ?? '';
  if (ctx.dir === 'restore' && isOriginalCrdName(name, ctx)) return SKIP;
  const entry = crdEntryOf(name, ctx);
  if (entry === undefined) return crd;
  let out = updateIn(crd, ['metadata'], (m) => ({ ...m, name: rewriteCrdName(name, ctx) }));
  out = updateRecord(out, 'spec', (spec) => rewriteCrdSpec(spec, entry, ctx));
  return updateIn(out, ['status'], (st) =>
    updateRecord(st, 'acceptedNames', (n) => rewriteCrdNames(n, entry, ctx)),
  );
}
