/**
 * The 401 and 403 answers as Kubernetes `Status` objects, worded as kube-apiserver words them
 * (apimachinery errors.NewUnauthorized / NewForbidden, apiserver responsewriters.Forbidden):
 *   `<resource>.<group> "<name>" is forbidden: User "<user>" cannot <verb> resource "<resource>/<sub>"
 *    in API group "<group>" in the namespace "<ns>"[: <authorizer reason>]`
 * with details { name, group, kind: <resource> } (Kubernetes puts the resource in `kind` here). Go's %q is
 * rendered with JSON string quoting, which agrees for printable text.
 */
import { newStatus, type Status } from '../../kernel/errors/errors.ts';
import type { Identity } from './identity.ts';
import type { ResourceAttributes } from './sar.ts';

const quote = (s: string): string => JSON.stringify(s);

/** 401 Unauthorized; the message says why (identify() wrote it), or just "Unauthorized". */
export function unauthorizedStatus(message = 'Unauthorized'): Status {
  return newStatus(401, message);
}

/** The "User … cannot …" sentence of a refused resource request. */
function forbiddenMessage(user: string, attrs: ResourceAttributes): string {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace ${quote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${quote(user)} cannot ${attrs.verb} resource ${quote(resource)} in API group ${quote(attrs.group)} ${scope}`;
}

/** 403 Forbidden for this identity and these attributes, with the authorizer's reason when it gave one. */
export function forbiddenStatus(identity: Identity, attrs: ResourceAttributes, reason = ''): Status {
  const sentence = forbiddenMessage(identity.user, attrs);
  const err = reason === '' ? sentence : `${sentence}: ${reason}`;
  const qualified = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
  const name = attrs.name ?? '';
  const message =
    name === '' ? `${qualified} is forbidden: ${err}` : `${qualified} ${quote(name)} is forbidden: ${err}`;
  return newStatus(403, message, {
    details: { ...(name === '' ? {} : { name }), group: attrs.group, kind: attrs.resource },
  });
}
