/**
 * The Kubernetes Status object a refusal is written as (kubevirt rest/subresource.go writeError: the StatusError's
 * Status with kind Status and apiVersion v1), keys in the order Go's encoding/json writes metav1.Status. Pure.
 */
import type { StatusReason } from '../../kernel/errors/errors.ts';
import type { Refusal, RefusalCause } from './refusal.ts';

export interface SubresourceStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Readonly<Record<string, never>>;
  readonly status: 'Failure';
  readonly message: string;
  readonly reason: StatusReason;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly RefusalCause[];
  };
  readonly code: number;
}

/** The Status of a refusal; `details` only when the refusal has some (a BadRequest has none). */
export function statusOf(r: Refusal): SubresourceStatus {
  const d = r.details;
  const details =
    d === undefined
      ? undefined
      : {
          ...(d.name !== undefined && d.name !== '' && { name: d.name }),
          ...(d.group !== undefined && d.group !== '' && { group: d.group }),
          ...(d.kind !== undefined && d.kind !== '' && { kind: d.kind }),
          ...(d.causes !== undefined && d.causes.length > 0 && { causes: d.causes }),
        };
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: r.message,
    reason: r.reason,
    ...(details !== undefined && Object.keys(details).length > 0 && { details }),
    code: r.status,
  };
}
