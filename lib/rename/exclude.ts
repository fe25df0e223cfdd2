/**
 * Objects hidden from the client on restore: every original Kind and ListKind of the rule set (a real upstream
 * kubevirt.io VirtualMachine on the same cluster), matched with its group when the object names one, and the
 * extra ExcludeRules ({kinds, matchNames, matchLabels}, all present conditions must hold).
 */
import type { RewriteContext } from './context.ts';
import { getRecord, getString, type JsonRecord } from './json.ts';
import { splitApiVersion } from './names.ts';
import type { ExcludeRule } from './rules/types.ts';

/** kind and apiVersion of an object, from the object or (list items) from its list. */
export interface ObjectType {
  readonly kind?: string | undefined;
  readonly apiVersion?: string | undefined;
}

function matchesRule(rule: ExcludeRule, obj: JsonRecord, kind: string): boolean {
  if (rule.kinds && !rule.kinds.includes(kind)) return false;
  const meta = getRecord(obj, 'metadata') ?? {};
  if (rule.matchNames && !rule.matchNames.includes(getString(meta, 'name') ?? '')) return false;
  if (rule.matchLabels) {
    const labels = getRecord(meta, 'labels') ?? {};
    for (const [k, v] of Object.entries(rule.matchLabels)) if (labels[k] !== v) return false;
  }
  return true;
}

export function isExcluded(obj: JsonRecord, type: ObjectType, ctx: RewriteContext): boolean {
  if (ctx.dir !== 'restore') return false;
  const kind = type.kind ?? '';
  const groups = ctx.rules.originalKinds.get(kind);
  if (groups !== undefined) {
    if (type.apiVersion === undefined || groups.has(splitApiVersion(type.apiVersion)[0])) return true;
  }
  return ctx.rules.excludes.some((rule) => matchesRule(rule, obj, kind));
}
