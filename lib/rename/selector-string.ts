/**
 * Label selector strings as sent in `?labelSelector=` (k8s.io/apimachinery labels.Parse grammar): keys and values
 * follow the label rules, `in`/`notin` value lists come out sorted. A string that does not parse is returned
 * unchanged so the API server reports the error.
 */
import type { RewriteContext } from './context.ts';
import { rewriteKeyValues } from './label-selector.ts';

type Requirement =
  | { readonly op: 'exists' | 'notexists'; readonly key: string }
  | { readonly op: '=' | '==' | '!=' | '>' | '<'; readonly key: string; readonly value: string }
  | { readonly op: 'in' | 'notin'; readonly key: string; readonly values: readonly string[] };

const KEY = String.raw`[^\s=!<>(),]+`;
const VALUE = String.raw`[^\s=!<>(),]*`;
const NOT_EXISTS = new RegExp(String.raw`^!\s*(${KEY})$`);
const SET = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s*\(([^()]*)\)$`);
const COMPARE = new RegExp(String.raw`^(${KEY})\s*(==|=|!=|>|<)\s*(${VALUE})$`);
const EXISTS = new RegExp(String.raw`^(${KEY})$`);

/** Splits at commas outside parentheses. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim());
}

function parseRequirement(s: string): Requirement | undefined {
  let m = NOT_EXISTS.exec(s);
  if (m) return { op: 'notexists', key: m[1] as string };
  m = SET.exec(s);
  if (m) {
    const values = (m[3] as string).split(',').map((v) => v.trim());
    return { op: m[2] as 'in' | 'notin', key: m[1] as string, values };
  }
  m = COMPARE.exec(s);
  if (m) return { op: m[2] as '=' | '==' | '!=' | '>' | '<', key: m[1] as string, value: m[3] as string };
  m = EXISTS.exec(s);
  return m ? { op: 'exists', key: m[1] as string } : undefined;
}

export function parseLabelSelector(selector: string): Requirement[] | undefined {
  if (selector.trim() === '') return [];
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(selector)) {
    const req = parseRequirement(part);
    if (req === undefined) return undefined;
    reqs.push(req);
  }
  return reqs;
}

function formatRequirement(req: Requirement): string {
  switch (req.op) {
    case 'exists':
      return req.key;
    case 'notexists':
      return `!${req.key}`;
    case 'in':
    case 'notin':
      return `${req.key} ${req.op} (${req.values.join(',')})`;
    case '=':
    case '==':
    case '!=':
    case '>':
    case '<':
      return `${req.key}${req.op}${req.value}`;
  }
}

function rewriteReq(req: Requirement, ctx: RewriteContext): Requirement {
  const rules = ctx.rules.labels;
  switch (req.op) {
    case 'exists':
    case 'notexists':
      return { op: req.op, key: rules.rewriteKey(ctx.dir, req.key) };
    case 'in':
    case 'notin': {
      const next = rewriteKeyValues(req.key, req.values, rules, ctx.dir);
      return { op: req.op, key: next.key, values: [...next.values].sort() };
    }
    case '>':
    case '<':
      return { ...req, key: rules.rewriteKey(ctx.dir, req.key) };
    case '=':
    case '==':
    case '!=': {
      const next = rewriteKeyValues(req.key, [req.value], rules, ctx.dir);
      return { op: req.op, key: next.key, value: next.values[0] ?? req.value };
    }
  }
}

/** The rewritten selector; the input itself when it does not parse or nothing in it changes. */
export function rewriteLabelSelectorString(selector: string, ctx: RewriteContext): string {
  const reqs = parseLabelSelector(selector);
  if (reqs === undefined) return selector;
  const before = reqs.map(formatRequirement).join(',');
  const after = reqs.map((r) => formatRequirement(rewriteReq(r, ctx))).join(',');
  return after === before ? selector : after;
}
