import { describe, expect, it } from '@jest/globals';
import { accessFor, accessRefusal, NOT_AUTHENTICATED, rbacVerb, type Access } from './access.ts';
import { pathTokens } from './path-tokens.ts';

const G = '/apis/subresources.kubevirt.io';
const VMI = `${G}/v1/namespaces/ns1/virtualmachineinstances/vmi1`;
/** A review of `resource/subresource/name` in namespace ns1. */
const review = (verb: string, target: string): Access => {
  const [resource = '', subresource = '', name = ''] = target.split('/');
  return {
    kind: 'review',
    attributes: {
      namespace: 'ns1',
      verb,
      group: 'subresources.kubevirt.io',
      version: 'v1',
      resource,
      subresource,
      name,
    },
  };
};
const pub: Access = { kind: 'public' };
const refused = (reason: string): Access => ({ kind: 'refused', reason });

describe('accessFor', () => {
  it.each<[string, string, string, Access]>([
    ['a HEAD is a get', 'HEAD', `${VMI}/console`, review('get', 'virtualmachineinstances/console/vmi1')],
    ['POST is create', 'POST', `${VMI}/console`, review('create', 'virtualmachineinstances/console/vmi1')],
    ['DELETE', 'DELETE', `${VMI}/console`, review('delete', 'virtualmachineinstances/console/vmi1')],
    ['an unknown method', 'TRACE', `${VMI}/console`, refused('unknown http verb in request: TRACE')],
    [
      'seven parts, not expand-vm-spec',
      'PUT',
      `${G}/v1/namespaces/ns1/virtualmachines`,
      refused('unknown resource type virtualmachines'),
    ],
    [
      'expand-vm-spec with GET is a list',
      'GET',
      `${G}/v1/namespaces/ns1/expand-vm-spec`,
      {
        kind: 'review',
        attributes: {
          namespace: 'ns1',
          verb: 'list',
          group: 'subresources.kubevirt.io',
          version: 'v1',
          resource: 'expand-vm-spec',
        },
      },
    ],
    [
      'eight parts',
      'GET',
      `${G}/v1/namespaces/ns1/virtualmachines/vm1`,
      refused(`unknown api endpoint: ${G}/v1/namespaces/ns1/virtualmachines/vm1`),
    ],
    ['profilers are public', 'GET', `${G}/v1/start-cluster-profiler`, pub],
    ['guestfs is public', 'GET', `${G}/v1alpha3/guestfs`, pub],
    ['openapi v3 is public', 'GET', '/openapi/v3', pub],
    ['a path that does not read', 'GET', `${G}/v1/namespaces/ns1/x%zz`, refused('unknown api endpoint')],
  ])('%s', (_name, method, path, want) => {
    expect(accessFor(method, pathTokens(path))).toEqual(want);
  });

  it.each<[string, boolean, string | undefined]>([
    ['GET', false, 'list'],
    ['get', true, 'get'],
    ['PUT', true, 'update'],
    ['PATCH', true, 'patch'],
    ['DELETE', false, 'deletecollection'],
    ['CONNECT', true, undefined],
  ])('rbacVerb(%s, named %p) is %p', (method, named, want) => {
    expect(rbacVerb(method, named)).toBe(want);
  });

  it('refuses with 401 and the reason as text', () => {
    expect(accessRefusal(NOT_AUTHENTICATED)).toEqual({
      status: 401,
      reason: 'Unauthorized',
      message: 'request is not authenticated',
      plainText: true,
    });
  });
});
