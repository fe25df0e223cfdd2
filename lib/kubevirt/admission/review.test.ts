import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { deniedWith, parseReview, reviewResponse, type ParsedReview } from './review.ts';

const request = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  uid: 'u-1',
  operation: 'CREATE',
  userInfo: { username: 'alice' },
  object: { metadata: { name: 'x' } },
  ...extra,
});
const review = (req: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req, ...extra });

describe('parseReview', () => {
  it('reads a CREATE review', () => {
    const r = parseReview(review(request()));
    expect(r).toMatchObject({
      ok: true,
      review: { apiVersion: 'admission.k8s.io/v1', request: { uid: 'u-1' } },
    });
  });

  it.each<[string, string, string]>([
    ['not JSON', '{"kind":', 'the body is not JSON: '],
    ['an array', '[]', 'the body must be an AdmissionReview object'],
    ['another kind', JSON.stringify({ kind: 'Pod', apiVersion: 'v1' }), 'kind must be AdmissionReview'],
    [
      'another version',
      JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v2' }),
      'apiVersion must be one of admission.k8s.io/v1, admission.k8s.io/v1beta1',
    ],
    ['no request', review(undefined), 'request must be an object'],
    ['no uid', review(request({ uid: '' })), 'request.uid must be a non-empty string'],
    [
      'a bad operation',
      review(request({ operation: 'PATCH' })),
      'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT',
    ],
    ['userInfo a string', review(request({ userInfo: 'root' })), 'request.userInfo must be an object'],
    ['object a list', review(request({ object: [1] })), 'request.object must be an object'],
    [
      'CREATE without an object',
      review(request({ object: undefined })),
      'request.object is required for CREATE',
    ],
    [
      'UPDATE without the old object',
      review(request({ operation: 'UPDATE' })),
      'request.oldObject is required for UPDATE',
    ],
    ['a name not a string', review(request({ name: 5 })), 'request.name must be a string'],
    ['dryRun not a boolean', review(request({ dryRun: 'yes' })), 'request.dryRun must be a boolean'],
    [
      'a resource without its version',
      review(request({ resource: { group: 'kubevirt.io', resource: 'kubevirts' } })),
      'request.resource must be a group, version and resource',
    ],
    [
      'user groups not strings',
      review(request({ userInfo: { username: 'alice', groups: [1] } })),
      'request.userInfo.groups must be a list of strings',
    ],
  ])('refuses %s with a 400 Status', (_name, body, message) => {
    const r = parseReview(body);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toMatchObject({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest' });
    expect(r.status.message?.startsWith(message)).toBe(true);
  });

  it('answers any body with a review or a 400 Status, never a throw (fuzz)', () => {
    const valid = review(request());
    const bodies = fc.oneof(
      fc.string(),
      fc.json(),
      fc.nat({ max: valid.length }).map((n) => valid.slice(0, n)),
      fc.anything().map((a) => review(a)),
      fc
        .dictionary(fc.constantFrom('uid', 'operation', 'userInfo', 'object', 'oldObject'), fc.anything())
        .map((r) => review(r)),
      fc.string({ minLength: 1 }).map((junk) => valid.replace('"alice"', JSON.stringify(junk.repeat(1000)))),
    );
    fc.assert(
      fc.property(bodies, (body) => {
        const r = parseReview(body);
        if (r.ok) {
          const out = reviewResponse(r.review, { allowed: true });
          expect(out.response.uid).toBe(r.review.request.uid);
        } else {
          expect(r.status.code).toBe(400);
          expect(typeof r.status.message).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('reviewResponse', () => {
  const parsed = parseReview(review(request())) as { ok: true; review: ParsedReview };

  it('allows with a base64 JSONPatch', () => {
    const out = reviewResponse(parsed.review, {
      allowed: true,
      patch: [{ op: 'add', path: '/spec', value: { a: 1 } }],
    });
    expect(out).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(out.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(out.response.patch ?? '', 'base64').toString())).toEqual([
      { op: 'add', path: '/spec', value: { a: 1 } },
    ]);
  });

  it('allows without a patch when nothing changes', () => {
    expect(reviewResponse(parsed.review, { allowed: true, patch: [] }).response).toEqual({
      uid: 'u-1',
      allowed: true,
    });
  });

  it("denies as KubeVirt does: 422 Invalid, the causes' messages joined, the causes kept", () => {
    const causes = [
      { type: 'FieldValueRequired', message: 'a is required', field: 'spec.a' },
      { type: 'FieldValueInvalid', message: 'b is wrong', field: '' },
    ] as const;
    expect(reviewResponse(parsed.review, deniedWith(causes)).response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'a is required, b is wrong',
        details: {
          causes: [
            { reason: 'FieldValueRequired', message: 'a is required', field: 'spec.a' },
            { reason: 'FieldValueInvalid', message: 'b is wrong' },
          ],
        },
      },
    });
    expect(deniedWith([])).toEqual({ allowed: true });
  });
});
