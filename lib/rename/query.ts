/**
 * Query strings: only `labelSelector` and `fieldSelector` are rewritten; every other parameter, the order and the
 * original encoding are kept byte for byte.
 */
import type { RewriteContext } from './context.ts';
import { rewriteFieldSelectorString, type FieldSelectorScope } from './field-selector.ts';
import { rewriteLabelSelectorString } from './selector-string.ts';

function decodeForm(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** The value of the first parameter with this name, form-decoded. */
export function queryParam(query: string, name: string): string | undefined {
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    if (decodeForm(rawName) === name) return decodeForm(eq === -1 ? '' : part.slice(eq + 1)) ?? '';
  }
  return undefined;
}

function rewriteParam(name: string, value: string, scope: FieldSelectorScope, ctx: RewriteContext): string {
  if (name === 'labelSelector') return rewriteLabelSelectorString(value, ctx);
  if (name === 'fieldSelector') return rewriteFieldSelectorString(value, scope, ctx);
  return value;
}

export function rewriteQuery(query: string, scope: FieldSelectorScope, ctx: RewriteContext): string {
  if (!query.includes('Selector')) return query;
  const parts = query.split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    const name = eq === -1 ? undefined : decodeForm(part.slice(0, eq));
    const value = eq === -1 ? undefined : decodeForm(part.slice(eq + 1));
    if (name === undefined || value === undefined) continue;
    const next = rewriteParam(name, value, scope, ctx);
    if (next === value) continue;
    parts[i] = new URLSearchParams([[name, next]]).toString();
    changed = true;
  }
  return changed ? parts.join('&') : query;
}
