/** The 404 a client gets for a single object the rewriter hides (SKIP on restore), in the API server's words. */
import { newStatus, type Status } from '../kernel/errors/errors.ts';
import type { ApiTarget } from './target.ts';

/** `target` is the request as the client sent it (original names). */
export function notFoundStatus(target: ApiTarget): Status {
  const qualified = target.group === '' ? target.resource : `${target.resource}.${target.group}`;
  return newStatus(404, `${qualified} "${target.name}" not found`, {
    details: {
      name: target.name,
      ...(target.group !== '' && { group: target.group }),
      kind: target.resource,
    },
  });
}
