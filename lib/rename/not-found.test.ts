import { describe, expect, it } from '@jest/globals';
import { notFoundStatus } from './not-found.ts';
import { parseTarget } from './target.ts';
import { KUBEVIRT } from './testing/synthetic-rules.ts';

describe('notFoundStatus', () => {
  it.each([
    [
      '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1',
      'virtualmachines.kubevirt.io "vm1" not found',
      { name: 'vm1', group: 'kubevirt.io', kind: 'virtualmachines' },
    ],
    ['/api/v1/namespaces/ns/pods/p1', 'pods "p1" not found', { name: 'p1', kind: 'pods' }],
  ])('%s', (url, message, details) => {
    expect(notFoundStatus(parseTarget(url, KUBEVIRT))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message,
      details,
    });
  });
});
