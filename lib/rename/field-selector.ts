/**
 * Field selector strings (`?fieldSelector=`): `metadata.name=<crd name>` on CRD lists, and
 * `involvedObject.kind` / `involvedObject.apiVersion` on Event lists. Other terms pass through.
 */
import type { RewriteContext } from './context.ts';
import { rewriteApiVersion, rewriteCrdName, rewriteGroupKind, splitApiVersion } from './names.ts';

interface Term {
  readonly key: string;
  readonly op: string;
  readonly value: string;
}

const TERM = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/;

function parseTerms(selector: string): Term[] | undefined {
  const terms: Term[] = [];
  for (const part of selector.split(/(?<!\\),/)) {
    const m = TERM.exec(part.trim());
    if (!m) return undefined;
    terms.push({ key: m[1] as string, op: m[2] as string, value: m[3] as string });
  }
  return terms;
}

const format = (terms: readonly Term[]): string => terms.map((t) => `${t.key}${t.op}${t.value}`).join(',');

/** A kind alone is renamed only when exactly one original group has it. */
function rewriteInvolvedKind(kind: string, apiVersion: string | undefined, ctx: RewriteContext): string {
  let groups: readonly string[];
  if (apiVersion !== undefined) groups = [splitApiVersion(apiVersion)[0]];
  else if (ctx.dir === 'rename') groups = [...(ctx.rules.originalKinds.get(kind) ?? [])];
  else groups = [...ctx.rules.groupByRenamed.keys()];
  const hits = groups.map((g) => rewriteGroupKind(g, kind, ctx)).filter((h) => h !== undefined);
  return hits.length === 1 && hits[0] !== undefined ? hits[0].kind : kind;
}

export interface FieldSelectorScope {
  /** The selector filters CustomResourceDefinitions. */
  readonly crd: boolean;
  /** The selector filters Events. */
  readonly events: boolean;
}

export function rewriteFieldSelectorString(
  selector: string,
  scope: FieldSelectorScope,
  ctx: RewriteContext,
): string {
  const terms = parseTerms(selector);
  if (terms === undefined) return selector;
  const apiVersion = terms.find((t) => t.key === 'involvedObject.apiVersion')?.value;
  const next = terms.map((t): Term => {
    if (scope.crd && t.key === 'metadata.name') return { ...t, value: rewriteCrdName(t.value, ctx) };
    if (scope.events && t.key === 'involvedObject.apiVersion')
      return { ...t, value: rewriteApiVersion(t.value, ctx) };
    if (scope.events && t.key === 'involvedObject.kind') {
      return { ...t, value: rewriteInvolvedKind(t.value, apiVersion, ctx) };
    }
    return t;
  });
  const out = format(next);
  return out === format(terms) ? selector : out;
}
