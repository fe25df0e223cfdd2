/**
 * A request path as both the router (routes.ts) and the access check (access.ts) read it, so the
 * SubjectAccessReview is always about the resource that is served: the raw path before any query, slashes at
 * either end dropped (go-restful's TrimRightSlashEnabled, and the left end as KubeVirt's authorizer skips the
 * leading empty part), split on '/', each segment percent-decoded on its own. A segment that does not decode,
 * decodes to one with a '/' (an escaped slash would make one segment two for one reader and not the other), or
 * is '.' or '..' leaves no tokens at all: the path is not served and not reviewed. An empty segment inside the
 * path is kept as ''. Pure.
 */

/** The decoded segments of the target's path, or undefined when the path cannot be read safely. */
export function pathTokens(target: string): readonly string[] | undefined {
  const q = target.indexOf('?');
  const trimmed = (q >= 0 ? target.slice(0, q) : target).replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  const tokens: string[] = [];
  for (const raw of trimmed.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment.includes('/') || segment === '.' || segment === '..') return undefined;
    tokens.push(segment);
  }
  return tokens;
}
