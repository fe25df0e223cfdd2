import { describe, expect, it } from '@jest/globals';
import { authorize, type Authorizer, type Decision, type ResourceAttributes } from './index.ts';

const attrs: ResourceAttributes = {
  namespace: 'ns1',
  verb: 'update',
  group: 'subresources.kubevirt.io',
  version: 'v1',
  resource: 'virtualmachines',
  subresource: 'addvolume',
  name: 'vm1',
};
const bob = { user: 'bob', groups: ['dev'], extra: {} };
const answering = (d: Decision): Authorizer => ({ authorize: () => Promise.resolve(d) });

describe('authorize', () => {
  it('passes an allowed answer through', async () => {
    expect(await authorize(answering({ allowed: true }), bob, attrs)).toEqual({ allowed: true });
  });

  it('turns a denial into the 403 Status with the reason', async () => {
    const r = await authorize(answering({ allowed: false, reason: 'RBAC: nope' }), bob, attrs);
    expect(r).toEqual({
      allowed: false,
      status: expect.objectContaining({
        code: 403,
        reason: 'Forbidden',
        message:
          'virtualmachines.subresources.kubevirt.io "vm1" is forbidden: User "bob" cannot update resource "virtualmachines/addvolume" in API group "subresources.kubevirt.io" in the namespace "ns1": RBAC: nope',
      }),
    });
  });

  it('lets a failed review throw, for the server to answer 500', async () => {
    const failing: Authorizer = { authorize: () => Promise.reject(new Error('apiserver down')) };
    await expect(authorize(failing, bob, attrs)).rejects.toThrow('apiserver down');
  });
});
