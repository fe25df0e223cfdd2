/**
 * Whose identity a kube-api proxy request runs as (pure). A request with its own Authorization runs as its
 * client, on either listener. One without is refused on TCP with a 401 Status as kube-apiserver's
 * authentication filter answers (reason Unauthorized); on the unix socket, which only the sidecar's own
 * container can open, it runs as the rewriter, for the Kubernetes API paths only (/api, /apis, /version,
 * /openapi, health).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { newStatus, type Status } from '../../kernel/errors/errors.ts';
import type { ApiTarget } from '../../rename/target.ts';
import type { Identity } from './upstream.ts';

/** Where a request without credentials goes: refused (TCP) or sent as the rewriter (its unix socket). */
export type CredentialLess = 'refuse' | 'lend';

export type Admission = { readonly as: Identity } | { readonly refused: Status };

/** Kubernetes API paths besides /api and /apis that a client of the rewriter's identity may ask for. */
const NON_RESOURCE = /^\/(version|openapi|healthz|livez|readyz)(\/|$)/;

/** A path segment that, decoded, is `.`, `..` or holds a slash: the API server could read it as another path. */
function isDotOrSlash(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return true;
  }
  return decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\');
}

/** The paths the rewriter forwards with its own identity. */
function isKubernetesApiPath(target: ApiTarget): boolean {
  if (target.path.split('/').some(isDotOrSlash)) return false;
  return target.type === 'core' || target.type === 'apis' || NON_RESOURCE.test(target.path);
}

function hasOwnCredentials(headers: IncomingHttpHeaders): boolean {
  const auth = headers.authorization;
  return auth !== undefined && auth.trim() !== '';
}

export function admit(
  headers: IncomingHttpHeaders,
  target: ApiTarget,
  credentialLess: CredentialLess,
): Admission {
  if (hasOwnCredentials(headers)) return { as: 'client' };
  if (credentialLess === 'refuse')
    return {
      refused: newStatus(
        401,
        'Unauthorized: the rewriter forwards a request on this port only with its own credentials ' +
          '(an Authorization header); it lends its identity on its unix socket only',
      ),
    };
  if (!isKubernetesApiPath(target))
    return {
      refused: newStatus(
        403,
        `forbidden: the rewriter forwards only Kubernetes API paths with its own identity, not ${JSON.stringify(target.path)}`,
      ),
    };
  return { as: 'rewriter' };
}
