import { describe, expect, it } from '@jest/globals';
import { describeAccess, requestAttributes, type RequestAttributes } from './request-attributes.ts';

describe('requestAttributes', () => {
  it.each<[string, string, string, RequestAttributes | undefined]>([
    [
      'a VM subresource',
      'PUT',
      '/apis/subresources.kubevirt.io/v1/namespaces/x/virtualmachines/vm1/start',
      {
        verb: 'update',
        group: 'subresources.kubevirt.io',
        resource: 'virtualmachines',
        subresource: 'start',
        namespace: 'x',
        name: 'vm1',
      },
    ],
    [
      'a websocket GET',
      'GET',
      '/apis/subresources.kubevirt.io/v1/namespaces/x/virtualmachineinstances/v/console',
      {
        verb: 'get',
        group: 'subresources.kubevirt.io',
        resource: 'virtualmachineinstances',
        subresource: 'console',
        namespace: 'x',
        name: 'v',
      },
    ],
    [
      'a core object with a query',
      'GET',
      '/api/v1/namespaces/d/persistentvolumeclaims/disk?x=1',
      { verb: 'get', group: '', resource: 'persistentvolumeclaims', namespace: 'd', name: 'disk' },
    ],
    [
      'a collection is a list',
      'GET',
      '/apis/kubevirt.io/v1/virtualmachines',
      { verb: 'list', group: 'kubevirt.io', resource: 'virtualmachines' },
    ],
    [
      'an encoded name',
      'GET',
      '/apis/kubevirt.io/v1/namespaces/a%20b/virtualmachines/c',
      { verb: 'get', group: 'kubevirt.io', resource: 'virtualmachines', namespace: 'a b', name: 'c' },
    ],
    ['a non-resource path', 'GET', '/version', undefined],
    ['a group root', 'GET', '/apis/kubevirt.io/v1', undefined],
  ])('%s', (_n, method, path, want) => {
    expect(requestAttributes(method, path)).toEqual(want);
  });

  it.each<[RequestAttributes, string]>([
    [
      { verb: 'update', group: 'g', resource: 'virtualmachines', subresource: 'start', namespace: 'x' },
      'update virtualmachines/start in namespace x',
    ],
    [{ verb: 'list', group: 'g', resource: 'nodes' }, 'list nodes cluster-wide'],
  ])('describes %j', (a, text) => {
    expect(describeAccess(a)).toBe(text);
  });
});
