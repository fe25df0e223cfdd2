import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from './json.ts';
import { applyMergePatch } from './merge-patch.ts';

describe('applyMergePatch', () => {
  // RFC 7386 appendix A, the rows whose target and patch are objects.
  it.each<[JsonObject, unknown, JsonObject]>([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('RFC 7386: %j + %j = %j', (doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it.each<[string, JsonObject, unknown, JsonObject]>([
    [
      'an array replacing a scalar loses the nulls of its objects',
      { a: 'x' },
      { a: [{ b: null, c: 1 }] },
      { a: [{ c: 1 }] },
    ],
    ['an array new to the target loses them too', {}, { a: [{ b: null }, null] }, { a: [{}, null] }],
    ['an array replacing an object keeps them', { a: { x: 1 } }, { a: [{ b: null }] }, { a: [{ b: null }] }],
  ])('as evanphx/json-patch: %s', (_name, doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it.each([[['c']], [null], ['bar'], [1]])('refuses the non-object patch %j', (patch) => {
    expect(() => applyMergePatch({ a: 'b' }, patch)).toThrow(
      expect.objectContaining({
        code: 'KV_ERR_CUSTOMIZE',
        message: 'a merge patch of an object is a JSON object',
      }),
    );
  });

  it('patches a Deployment without touching it', () => {
    const doc = { kind: 'Deployment', spec: { replicas: 2, template: { spec: { hostNetwork: false } } } };
    const before = structuredClone(doc);
    const out = applyMergePatch(doc, {
      spec: { replicas: 3, template: { spec: { hostNetwork: null, dnsPolicy: 'x' } } },
    });
    expect(out).toEqual({
      kind: 'Deployment',
      spec: { replicas: 3, template: { spec: { dnsPolicy: 'x' } } },
    });
    expect(doc).toEqual(before);
  });
});
