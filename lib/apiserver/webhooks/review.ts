/**
 * AdmissionReview (admission.k8s.io/v1) in and out, pure. A body is read strictly: JSON, an object, kind
 * AdmissionReview at admission.k8s.io/v1 (or v1beta1, answered in kind), a request with a uid, an operation
 * and, for CREATE/UPDATE, an object. Anything else is a 400 Status naming what is wrong, never a throw. The
 * answer carries the request's uid; a refusal carries a Status with KubeVirt's message and field causes; a
 * mutation carries a base64 JSONPatch.
 */
import type { AdmissionCause } from '../../kubevirt/validation/index.ts';
import { newStatus, type Status, type StatusCause } from '../../kernel/errors/errors.ts';

type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const VERSIONS: readonly string[] = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

export interface UserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource?: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: Operation;
  readonly userInfo: UserInfo;
  readonly object?: Record<string, unknown> | null;
  readonly oldObject?: Record<string, unknown> | null;
  readonly dryRun?: boolean;
}

export interface ParsedReview {
  readonly apiVersion: string;
  readonly request: AdmissionRequest;
}

export interface JsonPatchOp {
  readonly op: 'add' | 'replace' | 'remove' | 'test';
  readonly path: string;
  readonly value?: unknown;
}

/** What an admitter decides. */
export type Verdict =
  | { readonly allowed: true; readonly patch?: readonly JsonPatchOp[]; readonly warnings?: readonly string[] }
  | {
      readonly allowed: false;
      readonly code?: number;
      readonly message: string;
      readonly causes?: readonly StatusCause[];
    };

export interface AdmissionReviewResponse {
  readonly apiVersion: string;
  readonly kind: 'AdmissionReview';
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly status?: { code: number; message: string; reason: string; details?: { causes: StatusCause[] } };
    readonly patch?: string;
    readonly patchType?: 'JSONPatch';
    readonly warnings?: string[];
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string): { ok: false; status: Status } => ({
  ok: false,
  status: newStatus(400, message),
});

function objectsProblem(r: Record<string, unknown>, op: string): string | undefined {
  for (const key of ['object', 'oldObject'] as const) {
    const v = r[key];
    if (v !== undefined && v !== null && !isObject(v)) return `request.${key} must be an object`;
  }
  if ((op === 'CREATE' || op === 'UPDATE') && !isObject(r['object']))
    return `request.object is required for ${op}`;
  if (op === 'UPDATE' && !isObject(r['oldObject'])) return 'request.oldObject is required for UPDATE';
  return undefined;
}

function requestOf(r: Record<string, unknown>): AdmissionRequest | string {
  if (typeof r['uid'] !== 'string' || r['uid'] === '') return 'request.uid must be a non-empty string';
  const op = r['operation'];
  if (typeof op !== 'string' || !OPERATIONS.includes(op))
    return `request.operation must be one of ${OPERATIONS.join(', ')}`;
  const user = r['userInfo'] ?? {};
  if (!isObject(user)) return 'request.userInfo must be an object';
  const problem = objectsProblem(r, op);
  if (problem !== undefined) return problem;
  return { ...(r as unknown as AdmissionRequest), userInfo: user };
}

export function parseReview(
  body: string,
): { ok: true; review: ParsedReview } | { ok: false; status: Status } {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (err) {
    return bad(`the body is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(doc)) return bad('the body must be an AdmissionReview object');
  if (doc['kind'] !== 'AdmissionReview') return bad('kind must be AdmissionReview');
  const apiVersion = doc['apiVersion'];
  if (typeof apiVersion !== 'string' || !VERSIONS.includes(apiVersion))
    return bad(`apiVersion must be one of ${VERSIONS.join(', ')}`);
  const r = doc['request'];
  if (!isObject(r)) return bad('request must be an object');
  const request = requestOf(r);
  if (typeof request === 'string') return bad(request);
  return { ok: true, review: { apiVersion, request } };
}

const REASONS: Readonly<Record<number, string>> = { 400: 'BadRequest', 403: 'Forbidden', 422: 'Invalid' };

export function reviewResponse(review: ParsedReview, verdict: Verdict): AdmissionReviewResponse {
  const uid = review.request.uid;
  const base = { apiVersion: review.apiVersion, kind: 'AdmissionReview' as const };
  if (!verdict.allowed) {
    const code = verdict.code ?? 422;
    const causes = verdict.causes ?? [];
    return {
      ...base,
      response: {
        uid,
        allowed: false,
        status: {
          code,
          message: verdict.message,
          reason: REASONS[code] ?? 'Invalid',
          ...(causes.length > 0 && { details: { causes: [...causes] } }),
        },
      },
    };
  }
  const patch = verdict.patch ?? [];
  return {
    ...base,
    response: {
      uid,
      allowed: true,
      ...(patch.length > 0 && {
        patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        patchType: 'JSONPatch' as const,
      }),
      ...(verdict.warnings !== undefined &&
        verdict.warnings.length > 0 && { warnings: [...verdict.warnings] }),
    },
  };
}

/** KubeVirt's answer to a list of causes (webhooks ToAdmissionResponse): 422 Invalid, the messages joined by ", ". */
export function deniedWith(causes: readonly AdmissionCause[]): Verdict {
  if (causes.length === 0) return { allowed: true };
  return {
    allowed: false,
    code: 422,
    message: causes.map((c) => c.message).join(', '),
    causes: causes.map((c) => ({
      reason: c.type,
      message: c.message,
      ...(c.field !== '' && { field: c.field }),
    })),
  };
}
