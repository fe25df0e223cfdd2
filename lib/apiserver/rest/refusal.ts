/**
 * A subresource request refused: an HTTP status, a Kubernetes StatusReason and KubeVirt's message, built the way
 * KubeVirt's virt-api builds them (k8s.io/apimachinery pkg/api/errors NewBadRequest, NewConflict, NewForbidden,
 * NewNotFound, NewInternalError with `v1.Resource(...)`, i.e. group kubevirt.io). A refusal marked `plainText` is
 * written as its bare message (go-restful WriteError / WriteErrorString), not as a Status. Pure.
 */
import type { StatusCause, StatusReason } from '../../kernel/errors/errors.ts';

/** A cause as the Status wire names it (lib/kernel/errors StatusCause). */
export type RefusalCause = Readonly<StatusCause>;

export interface RefusalDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly RefusalCause[];
}

export interface Refusal {
  readonly status: number;
  readonly reason: StatusReason;
  readonly message: string;
  readonly details?: RefusalDetails;
  /** Answer with the message as a text body instead of a Status object. */
  readonly plainText?: true;
}

/** The singular resource names KubeVirt qualifies its conflicts and not-founds with. */
export type KubevirtResource = 'virtualmachine' | 'virtualmachineinstance';

const GROUP = 'kubevirt.io';

export function isRefusal(v: unknown): v is Refusal {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<Record<keyof Refusal, unknown>>;
  return typeof r.status === 'number' && typeof r.reason === 'string' && typeof r.message === 'string';
}

/** Go's %q of a Kubernetes name (names are printable ASCII, so JSON quoting reads the same). */
const quoted = (name: string): string => JSON.stringify(name);

export function badRequest(message: string): Refusal {
  return { status: 400, reason: 'BadRequest', message };
}

export function conflict(resource: KubevirtResource, name: string, text: string): Refusal {
  return {
    status: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${resource}.${GROUP} ${quoted(name)}: ${text}`,
    details: { name, group: GROUP, kind: resource },
  };
}

export function forbidden(resource: KubevirtResource, name: string, text: string): Refusal {
  return {
    status: 403,
    reason: 'Forbidden',
    message: `${resource}.${GROUP} ${quoted(name)} is forbidden: ${text}`,
    details: { name, group: GROUP, kind: resource },
  };
}

/** What virt-api answers when the VM or VMI it reads is not there (fetchVirtualMachine, FetchVirtualMachineInstance). */
export function notFound(resource: KubevirtResource, name: string): Refusal {
  return {
    status: 404,
    reason: 'NotFound',
    message: `${resource}.${GROUP} ${quoted(name)} not found`,
    details: { name, group: GROUP, kind: resource },
  };
}

export function internalError(text: string): Refusal {
  return {
    status: 500,
    reason: 'InternalError',
    message: `Internal error occurred: ${text}`,
    details: { causes: [{ message: text }] },
  };
}

/** The same refusal answered as go-restful's `WriteError(500, err)` does: status 500, the message as text. */
export function asPlainText500(r: Refusal): Refusal {
  return { status: 500, reason: 'InternalError', message: r.message, plainText: true };
}

/** The authorizer's refusal: 401 with the reason as text (virt-api's filter, WriteErrorString). */
export function unauthorized(reason: string): Refusal {
  return { status: 401, reason: 'Unauthorized', message: reason, plainText: true };
}

/** A body that does not decode (kubevirt rest/subresource.go decodeBody); `goError` is the decoder's text. */
export function unmarshalFailed(goError: string): Refusal {
  return badRequest(`Can not unmarshal Request body to struct, error: ${goError}`);
}
