/**
 * What a subresource call writes: JSON patches (RFC 6902, application/json-patch+json: KubeVirt sends
 * types.JSONPatchType for every one of these, never a merge patch) on the VM, its status subresource or the VMI
 * of the request's namespace and name, in order, with the body's dryRun as the patch request's dryRun option,
 * and how a failed patch is answered (kubevirt rest/lifecycle.go, rest/volumes.go, tag v1.6.2). Pure.
 */
import {
  conflict,
  internalError,
  type KubevirtResource,
  type Refusal,
  type RefusalDetails,
} from './refusal.ts';
import type { StatusReason } from '../../kernel/errors/errors.ts';

export type JsonPatchOp =
  | { readonly op: 'test' | 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** The VM, the VM's /status subresource, or the VMI. */
export type PatchTarget = 'vm' | 'vm/status' | 'vmi';

/** How a failed patch is answered. */
export type PatchErrorRule =
  /** 500 "Internal error occurred: <error>". */
  | { readonly kind: 'internal' }
  /** 409 on the resource when the error is a failed `test` ("jsonpatch test operation does not apply"), else 500. */
  | { readonly kind: 'test-conflict'; readonly resource: KubevirtResource }
  /** The API server's own answer when it is 422 Invalid, else 500 "Internal error occurred: <prefix>: <error>". */
  | { readonly kind: 'invalid-or-internal'; readonly prefix: string };

export interface PatchPlan {
  readonly target: PatchTarget;
  readonly type: 'json';
  readonly patch: readonly JsonPatchOp[];
  /** The patch request's dryRun option (absent: none). */
  readonly dryRun?: readonly string[];
  readonly onError: PatchErrorRule;
}

/** 202 with no body, as virt-api answers most changes; 200 with none, as the fork answers evacuatecancel. */
export interface Accepted {
  readonly status: 202 | 200;
}
export const ACCEPTED: Accepted = { status: 202 };
export const OK: Accepted = { status: 200 };

/** The patches of one call, sent in order; the first that fails ends the call with patchFailure. */
export interface VmPlan {
  readonly patches: readonly PatchPlan[];
  /** The answer once every patch is applied (a stop under Halted may patch the VMI and still refuse). */
  readonly then: Accepted | Refusal;
  /** Restart with gracePeriodSeconds 0: delete the VMI's launcher pod after the patches (launcher-pod.ts). */
  readonly deleteLauncherPod?: { readonly vmiUid: string; readonly gracePeriodSeconds: 1 };
}

export function patchPlan(
  target: PatchTarget,
  patch: readonly JsonPatchOp[],
  onError: PatchErrorRule,
  dryRun: readonly string[] | undefined,
): PatchPlan {
  return {
    target,
    type: 'json',
    patch,
    ...(dryRun !== undefined && dryRun.length > 0 && { dryRun }),
    onError,
  };
}

/** A patch error as the client saw it: its text and, when the API server answered with a Status, that Status. */
export interface PatchError {
  readonly message: string;
  readonly status?: {
    readonly code: number;
    readonly reason?: StatusReason;
    readonly message?: string;
    readonly details?: RefusalDetails;
  };
}

const JSONPATCH_TEST_ERROR = 'jsonpatch test operation does not apply';

/** The answer to a failed patch of `plan` on the object named `name`. */
export function patchFailure(plan: PatchPlan, name: string, err: PatchError): Refusal {
  const rule = plan.onError;
  switch (rule.kind) {
    case 'internal':
      return internalError(err.message);
    case 'test-conflict':
      return err.message.includes(JSONPATCH_TEST_ERROR)
        ? conflict(rule.resource, name, err.message)
        : internalError(err.message);
    case 'invalid-or-internal': {
      const s = err.status;
      if (s?.reason !== 'Invalid') return internalError(`${rule.prefix}: ${err.message}`);
      return {
        status: s.code,
        reason: 'Invalid',
        message: s.message ?? err.message,
        ...(s.details !== undefined && { details: s.details }),
      };
    }
  }
}
