/**
 * AdmissionReview (admission.k8s.io/v1) in and out, pure. A body is read strictly: JSON, an object, kind
 * AdmissionReview at admission.k8s.io/v1 (or v1beta1, answered in kind), a request with a uid, an operation
 * and, for CREATE/UPDATE, an object, each member it carries of the type the request declares. Anything else is a 400 Status naming what is wrong, never a throw. The
 * answer carries the request's uid; a refusal carries a Status with KubeVirt's message and field causes; a
 * mutation carries a base64 JSONPatch.
 */
import type { AdmissionCause } from '../validation/index.ts';
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
      /** The Status reason; absent: the code's (Invalid when it has none); '': none, as KubeVirt's 429s. */
      readonly reason?: string;
      readonly message: string;
      readonly causes?: readonly StatusCause[];
    };

export interface AdmissionReviewResponse {
  readonly apiVersion: string;
  readonly kind: 'AdmissionReview';
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly status?: { code: number; message: string; reason?: string; details?: { causes: StatusCause[] } };
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

type Guard<T> = (v: unknown) => v is T;
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isStringLists = (v: unknown): v is Record<string, string[]> =>
  isObject(v) && Object.values(v).every(isStrings);
const isOperation = (v: unknown): v is Operation => typeof v === 'string' && OPERATIONS.includes(v);
const isNullableObject = (v: unknown): v is Record<string, unknown> | null => v === null || isObject(v);
const withStrings =
  <K extends string>(...keys: readonly K[]): Guard<Record<K, string>> =>
  (v: unknown): v is Record<K, string> =>
    isObject(v) && keys.every((k) => isString(v[k]));
const isGroupVersionKind = withStrings('group', 'version', 'kind');
const isGroupVersionResource = withStrings('group', 'version', 'resource');

interface Members {
  get<T>(key: string, is: Guard<T>, expected: string): T | undefined;
  problem(): string | undefined;
}

/** Reads the optional members of `r`, each checked by its guard; the first one that fails is the problem. */
function membersOf(r: Record<string, unknown>, path: string): Members {
  let problem: string | undefined;
  return {
    get<T>(key: string, is: Guard<T>, expected: string): T | undefined {
      const v = r[key];
      if (v === undefined || is(v)) return v;
      problem ??= `${path}.${key} must be ${expected}`;
      return undefined;
    },
    problem: (): string | undefined => problem,
  };
}

function userInfoOf(v: unknown): UserInfo | string {
  if (!isObject(v)) return 'request.userInfo must be an object';
  const m = membersOf(v, 'request.userInfo');
  const username = m.get('username', isString, 'a string');
  const uid = m.get('uid', isString, 'a string');
  const groups = m.get('groups', isStrings, 'a list of strings');
  const extra = m.get('extra', isStringLists, 'an object of string lists');
  return (
    m.problem() ?? {
      ...(username !== undefined && { username }),
      ...(uid !== undefined && { uid }),
      ...(groups !== undefined && { groups }),
      ...(extra !== undefined && { extra }),
    }
  );
}

type Described = Pick<
  AdmissionRequest,
  'kind' | 'resource' | 'subResource' | 'name' | 'namespace' | 'dryRun'
>;

/** What the request says of the object besides the object: its kind, resource, name and namespace. */
function describedOf(r: Record<string, unknown>): Described | string {
  const m = membersOf(r, 'request');
  const kind = m.get('kind', isGroupVersionKind, 'a group, version and kind');
  const resource = m.get('resource', isGroupVersionResource, 'a group, version and resource');
  const subResource = m.get('subResource', isString, 'a string');
  const name = m.get('name', isString, 'a string');
  const namespace = m.get('namespace', isString, 'a string');
  const dryRun = m.get('dryRun', isBoolean, 'a boolean');
  return (
    m.problem() ?? {
      ...(kind !== undefined && { kind }),
      ...(resource !== undefined && { resource }),
      ...(subResource !== undefined && { subResource }),
      ...(name !== undefined && { name }),
      ...(namespace !== undefined && { namespace }),
      ...(dryRun !== undefined && { dryRun }),
    }
  );
}

/** The object and the old one, each an object when present, and present when the operation needs it. */
function objectsOf(
  r: Record<string, unknown>,
  op: Operation,
): Pick<AdmissionRequest, 'object' | 'oldObject'> | string {
  const m = membersOf(r, 'request');
  const object = m.get('object', isNullableObject, 'an object');
  const oldObject = m.get('oldObject', isNullableObject, 'an object');
  const problem = m.problem();
  if (problem !== undefined) return problem;
  if ((op === 'CREATE' || op === 'UPDATE') && !isObject(object))
    return `request.object is required for ${op}`;
  if (op === 'UPDATE' && !isObject(oldObject)) return 'request.oldObject is required for UPDATE';
  return { ...(object !== undefined && { object }), ...(oldObject !== undefined && { oldObject }) };
}

function requestOf(r: Record<string, unknown>): AdmissionRequest | string {
  const uid = r['uid'];
  if (typeof uid !== 'string' || uid === '') return 'request.uid must be a non-empty string';
  const operation = r['operation'];
  if (!isOperation(operation)) return `request.operation must be one of ${OPERATIONS.join(', ')}`;
  const userInfo = userInfoOf(r['userInfo'] ?? {});
  if (typeof userInfo === 'string') return userInfo;
  const objects = objectsOf(r, operation);
  if (typeof objects === 'string') return objects;
  const described = describedOf(r);
  if (typeof described === 'string') return described;
  return { uid, operation, userInfo, ...objects, ...described };
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
    const reason = verdict.reason ?? REASONS[code] ?? 'Invalid';
    const causes = verdict.causes ?? [];
    return {
      ...base,
      response: {
        uid,
        allowed: false,
        status: {
          code,
          message: verdict.message,
          ...(reason !== '' && { reason }),
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
