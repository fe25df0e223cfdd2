/**
 * What an API path asks for, in RBAC terms (verb, API group, resource/subresource, namespace, name), so a 403
 * can name exactly what to grant. Non-resource paths (/version, /healthz) give undefined. Pure.
 */
export interface RequestAttributes {
  readonly verb: string;
  /** '' for the core group. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

const VERBS: Readonly<Record<string, string>> = {
  GET: 'get',
  PUT: 'update',
  POST: 'create',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Splits '/apis/g/v/...' or '/api/v1/...' into the group and the segments after the version. */
function groupAndRest(segments: readonly string[]): { group: string; rest: string[] } | undefined {
  if (segments[0] === 'api' && segments.length >= 2) return { group: '', rest: segments.slice(2) };
  if (segments[0] === 'apis' && segments.length >= 3)
    return { group: segments[1] ?? '', rest: segments.slice(3) };
  return undefined;
}

export function requestAttributes(method: string, path: string): RequestAttributes | undefined {
  const segments = (path.split('?')[0] ?? '')
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  const parsed = groupAndRest(segments);
  if (parsed === undefined) return undefined;
  let rest = parsed.rest;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, ...sub] = rest;
  if (resource === undefined) return undefined;
  const verb = VERBS[method] ?? method.toLowerCase();
  return {
    verb: verb === 'get' && name === undefined ? 'list' : verb,
    group: parsed.group,
    resource,
    ...(sub.length > 0 && { subresource: sub.join('/') }),
    ...(namespace !== undefined && { namespace }),
    ...(name !== undefined && { name }),
  };
}

/** 'update virtualmachines/start in namespace x' (the phrase a 403 hint uses). */
export function describeAccess(a: RequestAttributes): string {
  const what = a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace === undefined ? 'cluster-wide' : `in namespace ${a.namespace}`;
  return `${a.verb} ${what} ${where}`;
}
