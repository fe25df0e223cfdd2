import { describe, expect, it } from '@jest/globals';
import type { ResourceAttributes } from './sar.ts';
import { forbiddenStatus, unauthorizedStatus } from './status.ts';

const console1: ResourceAttributes = {
  namespace: 'ns1',
  verb: 'get',
  group: 'subresources.kubevirt.io',
  version: 'v1',
  resource: 'virtualmachineinstances',
  subresource: 'console',
  name: 'vm1',
};
const alice = { user: 'alice', groups: [], extra: {} };

describe('unauthorizedStatus', () => {
  it('is a Kubernetes 401 Status', () => {
    expect(unauthorizedStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    expect(unauthorizedStatus('Unauthorized: a client certificate is required').message).toBe(
      'Unauthorized: a client certificate is required',
    );
  });
});

describe('forbiddenStatus', () => {
  it('words a refused subresource call as kube-apiserver does, with details', () => {
    expect(forbiddenStatus(alice, console1)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'virtualmachineinstances.subresources.kubevirt.io "vm1" is forbidden: User "alice" cannot get resource "virtualmachineinstances/console" in API group "subresources.kubevirt.io" in the namespace "ns1"',
      reason: 'Forbidden',
      details: { name: 'vm1', group: 'subresources.kubevirt.io', kind: 'virtualmachineinstances' },
      code: 403,
    });
  });

  it.each<[string, ResourceAttributes, string, string]>([
    [
      'the authorizer reason after a colon',
      console1,
      'no RBAC policy matched',
      'virtualmachineinstances.subresources.kubevirt.io "vm1" is forbidden: User "alice" cannot get resource "virtualmachineinstances/console" in API group "subresources.kubevirt.io" in the namespace "ns1": no RBAC policy matched',
    ],
    [
      'no name when the request has none',
      { ...console1, verb: 'list', subresource: '', name: '' },
      '',
      'virtualmachineinstances.subresources.kubevirt.io is forbidden: User "alice" cannot list resource "virtualmachineinstances" in API group "subresources.kubevirt.io" in the namespace "ns1"',
    ],
    [
      'the cluster scope without a namespace',
      { ...console1, namespace: '', verb: 'list', subresource: '', name: '' },
      '',
      'virtualmachineinstances.subresources.kubevirt.io is forbidden: User "alice" cannot list resource "virtualmachineinstances" in API group "subresources.kubevirt.io" at the cluster scope',
    ],
    [
      'the core group as ""',
      { ...console1, group: '', resource: 'pods', subresource: 'exec', name: 'p1' },
      '',
      'pods "p1" is forbidden: User "alice" cannot get resource "pods/exec" in API group "" in the namespace "ns1"',
    ],
  ])('has %s', (_what, attrs, reason, message) => {
    expect(forbiddenStatus(alice, attrs, reason).message).toBe(message);
  });

  it('quotes a user name with quotes in it', () => {
    expect(forbiddenStatus({ ...alice, user: 'a"b' }, console1).message).toContain('User "a\\"b" cannot');
  });

  it('leaves the name out of details when there is none', () => {
    expect(forbiddenStatus(alice, { ...console1, name: '' }).details).toEqual({
      group: 'subresources.kubevirt.io',
      kind: 'virtualmachineinstances',
    });
  });
});
