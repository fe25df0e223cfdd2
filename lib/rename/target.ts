/**
 * A request path + query parsed into a typed target:
 * `/api/<v>/...`, `/apis/<group>/<v>/[watch/][namespaces/<ns>/]<plural>[/<name>[/<sub>[/...]]]`, CRDs, discovery,
 * and the webhook paths of the rule set.
 */
import { queryParam } from './query.ts';
import type { RuleIndex } from './rules/rule-index.ts';
import type { WebhookRule } from './rules/types.ts';

type TargetType = 'root' | 'core' | 'apis' | 'webhook' | 'unknown';

export interface ApiTarget {
  readonly type: TargetType;
  /** The path as it is to be sent (the raw path until something is rewritten). */
  readonly path: string;
  /** Raw query without '?'. */
  readonly query: string;
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
  /** Segments after the subresource (e.g. a port-forward port). */
  readonly remainder: readonly string[];
  /** The deprecated `/watch/` path segment was used. */
  readonly watchSegment: boolean;
  readonly isWatch: boolean;
  /** A collection read that is not a watch (the verb decides between list and create). */
  readonly isList: boolean;
  /** /api, /api/<v>, /apis, /apis/<group>, /apis/<group>/<v>. */
  readonly isDiscovery: boolean;
  /** A customresourcedefinitions path of apiextensions.k8s.io. */
  readonly isCRD: boolean;
  readonly webhook?: WebhookRule;
}

const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

const EMPTY = {
  group: '',
  version: '',
  namespace: '',
  resource: '',
  name: '',
  subresource: '',
  remainder: [],
  watchSegment: false,
  isList: false,
  isDiscovery: false,
  isCRD: false,
} as const;

interface ResourceParts {
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  remainder: string[];
  watchSegment: boolean;
}

/** Segments after the version. `namespaces/<ns>/status|finalize` in core is the Namespace's own subresource. */
function parseResourceParts(rest: string[], core: boolean): ResourceParts {
  const watchSegment = rest[0] === 'watch';
  const segs = watchSegment ? rest.slice(1) : rest;
  let namespace = '';
  let tail = segs;
  const nsSubresource = core && segs.length === 3 && (segs[2] === 'status' || segs[2] === 'finalize');
  if (segs[0] === 'namespaces' && segs.length >= 3 && !nsSubresource) {
    namespace = segs[1] ?? '';
    tail = segs.slice(2);
  }
  const [resource = '', name = '', subresource = '', ...remainder] = tail;
  return { namespace, resource, name, subresource, remainder, watchSegment };
}

function isWatchQuery(query: string): boolean {
  const watch = queryParam(query, 'watch');
  return watch === 'true' || watch === '1';
}

function parseApiPath(path: string, query: string, segs: readonly string[]): ApiTarget {
  const core = segs[0] === 'api';
  const [group = '', version = '', ...rest] = core ? ['', ...segs.slice(1)] : segs.slice(1);
  const parts = parseResourceParts(rest, core);
  const isWatch = parts.watchSegment || isWatchQuery(query);
  return {
    type: core ? 'core' : 'apis',
    path,
    query,
    group,
    version,
    ...parts,
    isWatch,
    isList: parts.resource !== '' && parts.name === '' && !isWatch,
    isDiscovery: parts.resource === '',
    isCRD: !core && group === CRD_GROUP && parts.resource === CRD_RESOURCE,
  };
}

export function parseTarget(url: string, rules: RuleIndex): ApiTarget {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  const webhook = rules.webhooks.get(path);
  if (webhook) return { ...EMPTY, type: 'webhook', path, query, webhook, isWatch: false };
  const segs = path.split('/').filter((s) => s !== '');
  if (segs.length === 0) return { ...EMPTY, type: 'root', path, query, isWatch: false };
  if (segs[0] !== 'api' && segs[0] !== 'apis')
    return { ...EMPTY, type: 'unknown', path, query, isWatch: false };
  return parseApiPath(path, query, segs);
}

/** The path of a core or apis target built from its parts. */
export function formatTargetPath(t: ApiTarget): string {
  if (t.type !== 'core' && t.type !== 'apis') return t.path;
  const segs = t.type === 'core' ? ['api', t.version] : ['apis', t.group, t.version];
  if (t.watchSegment) segs.push('watch');
  if (t.namespace !== '') segs.push('namespaces', t.namespace);
  segs.push(t.resource, t.name, t.subresource, ...t.remainder);
  return '/' + segs.filter((s) => s !== '').join('/');
}

/** Path and query joined again. */
export function targetUrl(t: ApiTarget): string {
  return t.query === '' ? t.path : `${t.path}?${t.query}`;
}
