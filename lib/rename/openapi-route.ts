/**
 * Which OpenAPI paths the rewriter restores, and where it asks the API server for them (pure). The index
 * (/openapi/v3) and v2 (/openapi/v2) are asked as they are; a group-version of an original group
 * (/openapi/v3/apis/kubevirt.io/v1) is asked under its renamed group; one of a renamed group is hidden, as
 * discovery hides the renamed groups. Other paths pass through untouched.
 */
import type { RewriteContext } from './context.ts';
import type { RuleIndex } from './rules/rule-index.ts';

export type OpenApiRoute =
  | { readonly kind: 'index' | 'v2' }
  | { readonly kind: 'group-version'; readonly upstreamPath: string }
  | { readonly kind: 'hidden' };

const V3_APIS = '/openapi/v3/apis/';

export function openApiRoute(path: string, rules: RuleIndex): OpenApiRoute | undefined {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '/openapi/v3') return { kind: 'index' };
  if (trimmed === '/openapi/v2') return { kind: 'v2' };
  if (!trimmed.startsWith(V3_APIS)) return undefined;
  const [group = '', ...rest] = trimmed.slice(V3_APIS.length).split('/');
  if (rules.groupByRenamed.has(group)) return { kind: 'hidden' };
  // A `.` or `..` segment (plain or escaped) would name another path once the API server cleans it.
  if (rest.some((s) => /^(\.|%2e){1,2}$/i.test(s))) return undefined;
  const rule = rules.groupByOriginal.get(group);
  if (rule === undefined) return undefined;
  return { kind: 'group-version', upstreamPath: [V3_APIS + rule.renamed, ...rest].join('/') };
}

/**
 * `/openapi/v3/apis/<renamed>/<v>?hash=H` (an index entry, or a redirect's Location, relative or absolute) →
 * `/openapi/v3/apis/<group>/<v>?hash=H`. Other URLs come back unchanged.
 */
export function restoreOpenApiUrl(url: string, ctx: RewriteContext): string {
  const at = url.indexOf(V3_APIS);
  if (at === -1) return url;
  const start = at + V3_APIS.length;
  const end = url.slice(start).search(/[/?#]|$/) + start;
  const rule = ctx.rules.groupByRenamed.get(url.slice(start, end));
  return rule === undefined ? url : url.slice(0, start) + rule.group + url.slice(end);
}
