// A review with the stored names read back into kubevirt.io names, and what is left as it came.
import { describe, expect, it } from '@jest/globals';
import { kubevirtCr, withSpec } from '../../kubevirt/validation/testing/kubevirts.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../rename/index.ts';
import { restoreReview } from './restore.ts';
import { internalReview } from './testing/reviews.ts';

const index = buildRuleIndex(KUBEVIRT_REWRITE_RULES);

describe('restoreReview', () => {
  it('restores the kind, the resource and both objects of an internal review, and names the request', () => {
    const old = kubevirtCr();
    const next = kubevirtCr(withSpec('infra', { replicas: 0 }));
    const r = restoreReview(internalReview({ operation: 'UPDATE', object: next, oldObject: old }), index);
    const request = (JSON.parse(r.text) as { request: Record<string, unknown> }).request;
    expect(request['kind']).toEqual({ group: 'kubevirt.io', version: 'v1', kind: 'KubeVirt' });
    expect(request['resource']).toEqual({ group: 'kubevirt.io', version: 'v1', resource: 'kubevirts' });
    expect(request['object']).toEqual(next);
    expect(request['oldObject']).toEqual(old);
    expect(r.fields).toEqual({
      uid: 'kv-1',
      operation: 'UPDATE',
      namespace: 'd8-virtualization',
      name: 'kubevirt',
      kind: 'KubeVirt',
    });
  });

  it.each([
    ['not JSON', '{"kind":'],
    ['not an object', '[1]'],
    ['a review without a request', '{"kind":"AdmissionReview"}'],
  ])('leaves %s as it came, with nothing to log', (_what, body) => {
    const r = restoreReview(body, index);
    expect(r.text).toBe(body);
    expect(r.fields).toEqual({});
  });
});
