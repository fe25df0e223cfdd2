/**
 * LabelSelector objects (matchLabels + matchExpressions) and selector requirements ({key, operator, values}):
 * keys follow the label rules; values change only where a key=value rule says so.
 */
import type { RewriteContext } from './context.ts';
import { getString, mapRecords, updateArray, updateRecord, type JsonRecord } from './json.ts';
import { rewriteLabelMap } from './metadata.ts';
import type { NameRules } from './rules/name-rules.ts';
import type { Direction } from './rules/types.ts';

/**
 * Rewrites a key together with its values (matchExpressions, `in`/`notin` lists). The key is the one of the first
 * value whose rule changes the key; values are rewritten one by one. No values: the key alone.
 */
export function rewriteKeyValues(
  key: string,
  values: readonly string[],
  rules: NameRules,
  dir: Direction,
): { key: string; values: string[] } {
  if (values.length === 0) return { key: rules.rewriteKey(dir, key), values: [] };
  let nextKey = key;
  const nextValues = values.map((value) => {
    const [k, v] = rules.rewrite(dir, key, value);
    if (k !== key && nextKey === key) nextKey = k;
    return v ?? value;
  });
  return { key: nextKey, values: nextValues };
}

/** {key, operator, values} of a LabelSelector or a NodeSelectorTerm. */
function rewriteRequirement(req: JsonRecord, ctx: RewriteContext): JsonRecord {
  const key = getString(req, 'key');
  if (key === undefined) return req;
  const raw = Array.isArray(req['values']) ? req['values'] : [];
  if (!raw.every((v): v is string => typeof v === 'string')) return req;
  const next = rewriteKeyValues(key, raw, ctx.rules.labels, ctx.dir);
  const valuesChanged = next.values.some((v, i) => v !== raw[i]);
  if (next.key === key && !valuesChanged) return req;
  const out: JsonRecord = { ...req, key: next.key };
  if (valuesChanged) out['values'] = next.values;
  return out;
}

export function rewriteRequirements(reqs: unknown[], ctx: RewriteContext): unknown[] {
  return mapRecords(reqs, (req) => rewriteRequirement(req, ctx));
}

export function rewriteLabelSelector(selector: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateRecord(selector, 'matchLabels', (m) => rewriteLabelMap(m, ctx));
  return updateArray(out, 'matchExpressions', (reqs) => rewriteRequirements(reqs, ctx));
}

/** obj[key] as a LabelSelector. */
export function updateLabelSelector<T extends JsonRecord>(obj: T, key: string, ctx: RewriteContext): T {
  return updateRecord(obj, key, (sel) => rewriteLabelSelector(sel, ctx));
}
