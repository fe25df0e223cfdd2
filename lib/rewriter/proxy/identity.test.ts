import { describe, expect, it } from '@jest/globals';
import { parseTarget } from '../../rename/target.ts';
import { KUBEVIRT } from '../../rename/testing/synthetic-rules.ts';
import { admit, type CredentialLess } from './identity.ts';

const VMI = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/a';

describe('admit', () => {
  it.each<[CredentialLess, string, Record<string, string>, unknown]>([
    ['refuse', VMI, { authorization: 'Bearer t' }, { as: 'client' }],
    ['lend', '/logs', { authorization: 'Bearer t' }, { as: 'client' }],
    ['refuse', VMI, {}, 401],
    ['refuse', VMI, { authorization: '  ' }, 401],
    ['lend', VMI, {}, { as: 'rewriter' }],
    ['lend', '/apis', {}, { as: 'rewriter' }],
    ['lend', '/version', {}, { as: 'rewriter' }],
    ['lend', '/openapi/v3/apis/kubevirt.io/v1', {}, { as: 'rewriter' }],
    ['lend', '/livez/ping', {}, { as: 'rewriter' }],
    ['lend', '/', {}, 403],
    ['lend', '/logs/x', {}, 403],
    ['lend', '/versionx', {}, 403],
    ['lend', '/api/v1/../../logs', {}, 403],
    ['lend', '/api/v1/%2E%2e/x', {}, 403],
    ['lend', '/apis/a%2F..%2F..', {}, 403],
    ['lend', '/api/v1/%zz', {}, 403],
  ])('%s: %s with %j', (credentialLess, path, headers, want) => {
    const got = admit(headers, parseTarget(path, KUBEVIRT), credentialLess);
    expect('refused' in got ? got.refused.code : got).toEqual(want);
  });

  it('answers 401 as kube-apiserver does, saying where credentials go', () => {
    const got = admit({}, parseTarget(VMI, KUBEVIRT), 'refuse');
    expect(got).toEqual({
      refused: expect.objectContaining({
        kind: 'Status',
        status: 'Failure',
        reason: 'Unauthorized',
        code: 401,
        message: expect.stringMatching(/^Unauthorized: .*Authorization header.*unix socket/) as unknown,
      }) as unknown,
    });
  });
});
