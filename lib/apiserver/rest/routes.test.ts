import { describe, expect, it } from '@jest/globals';
import { accessFor, accessRefusal, NOT_AUTHENTICATED, rbacVerb, type Access } from './access.ts';
import {
  matchRequest,
  METHOD_NOT_ALLOWED_TEXT,
  NOT_FOUND_TEXT,
  type Route,
  type RouteMatch,
} from './routes.ts';

const G = '/apis/subresources.kubevirt.io';
const VMI = `${G}/v1/namespaces/ns1/virtualmachineinstances/vmi1`;
const VM = `${G}/v1alpha3/namespaces/ns1/virtualmachines/vm1`;
/** A review of `resource/subresource/name` in namespace ns1. */
const review = (verb: string, target: string, version = 'v1'): Access => {
  const [resource = '', subresource = '', name = ''] = target.split('/');
  return {
    kind: 'review',
    attributes: {
      namespace: 'ns1',
      verb,
      group: 'subresources.kubevirt.io',
      version,
      resource,
      subresource,
      name,
    },
  };
};
const vmiRoute = (subresource: string, extra: Partial<Route> = {}): Route =>
  ({
    kind: 'subresource',
    version: 'v1',
    resource: 'virtualmachineinstances',
    namespace: 'ns1',
    name: 'vmi1',
    subresource,
    ...extra,
  }) as Route;
const vmRoute = (subresource: string): Route => ({
  kind: 'subresource',
  version: 'v1alpha3',
  resource: 'virtualmachines',
  namespace: 'ns1',
  name: 'vm1',
  subresource,
});
const pub: Access = { kind: 'public' };
const refused = (reason: string): Access => ({ kind: 'refused', reason });

describe('matchRequest', () => {
  it.each<[string, string, string, RouteMatch]>([
    [
      'console is a GET',
      'GET',
      `${VMI}/console`,
      {
        kind: 'route',
        route: vmiRoute('console'),
        access: review('get', 'virtualmachineinstances/console/vmi1'),
      },
    ],
    [
      'freeze is a PUT',
      'PUT',
      `${VMI}/freeze`,
      {
        kind: 'route',
        route: vmiRoute('freeze'),
        access: review('update', 'virtualmachineinstances/freeze/vmi1'),
      },
    ],
    [
      'guestosinfo',
      'GET',
      `${VMI}/guestosinfo`,
      {
        kind: 'route',
        route: vmiRoute('guestosinfo'),
        access: review('get', 'virtualmachineinstances/guestosinfo/vmi1'),
      },
    ],
    [
      'a query is cut off',
      'GET',
      `${VMI}/vnc?preserveSession=true`,
      {
        kind: 'route',
        route: vmiRoute('vnc'),
        access: review('get', 'virtualmachineinstances/vnc/vmi1'),
      },
    ],
    [
      'vnc/screenshot: the review names only vnc',
      'GET',
      `${VMI}/vnc/screenshot`,
      {
        kind: 'route',
        route: vmiRoute('vnc/screenshot'),
        access: review('get', 'virtualmachineinstances/vnc/vmi1'),
      },
    ],
    [
      'portforward with a port',
      'GET',
      `${VMI}/portforward/22`,
      {
        kind: 'route',
        route: vmiRoute('portforward', { port: '22' }),
        access: review('get', 'virtualmachineinstances/portforward/vmi1'),
      },
    ],
    [
      'portforward with a protocol',
      'GET',
      `${VMI}/portforward/53/udp`,
      {
        kind: 'route',
        route: vmiRoute('portforward', { port: '53', protocol: 'udp' }),
        access: review('get', 'virtualmachineinstances/portforward/vmi1'),
      },
    ],
    [
      'portforward without a port',
      'GET',
      `${VMI}/portforward`,
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: review('get', 'virtualmachineinstances/portforward/vmi1'),
      },
    ],
    [
      'VM start on v1alpha3',
      'PUT',
      `${VM}/start`,
      {
        kind: 'route',
        route: vmRoute('start'),
        access: review('update', 'virtualmachines/start/vm1', 'v1alpha3'),
      },
    ],
    [
      'VM addvolume',
      'PUT',
      `${VM}/addvolume`,
      {
        kind: 'route',
        route: vmRoute('addvolume'),
        access: review('update', 'virtualmachines/addvolume/vm1', 'v1alpha3'),
      },
    ],
    [
      'VM evacuatecancel (fork)',
      'PUT',
      `${VM}/evacuatecancel`,
      {
        kind: 'route',
        route: vmRoute('evacuatecancel'),
        access: review('update', 'virtualmachines/evacuatecancel/vm1', 'v1alpha3'),
      },
    ],
    [
      'a trailing slash is ignored by the router',
      'PUT',
      `${VMI}/pause/`,
      {
        kind: 'route',
        route: vmiRoute('pause'),
        access: review('update', 'virtualmachineinstances/pause/vmi1'),
      },
    ],
    [
      'a percent-encoded name',
      'PUT',
      `${G}/v1/namespaces/ns1/virtualmachineinstances/vm%2Dx/reset`,
      {
        kind: 'route',
        route: { ...vmiRoute('reset'), name: 'vm-x' } as Route,
        access: review('update', 'virtualmachineinstances/reset/vm-x'),
      },
    ],
    [
      'a wrong method: 405 with Allow, after the review (verb patch)',
      'PATCH',
      `${VMI}/pause`,
      {
        kind: 'error',
        status: 405,
        message: METHOD_NOT_ALLOWED_TEXT,
        allow: 'PUT',
        access: review('patch', 'virtualmachineinstances/pause/vmi1'),
      },
    ],
    [
      'GET console with PUT',
      'PUT',
      `${VMI}/console`,
      {
        kind: 'error',
        status: 405,
        message: METHOD_NOT_ALLOWED_TEXT,
        allow: 'GET',
        access: review('update', 'virtualmachineinstances/console/vmi1'),
      },
    ],
    [
      'a VM has no console',
      'GET',
      `${VM}/console`,
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: review('get', 'virtualmachines/console/vm1', 'v1alpha3'),
      },
    ],
    [
      'an unknown subresource',
      'PUT',
      `${VMI}/explode`,
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: review('update', 'virtualmachineinstances/explode/vmi1'),
      },
    ],
    [
      'an unknown resource: refused by the authorizer, then 404',
      'GET',
      `${G}/v1/namespaces/ns1/pods/p/console`,
      { kind: 'error', status: 404, message: NOT_FOUND_TEXT, access: refused('unknown resource type pods') },
    ],
    [
      'an unknown version',
      'GET',
      `${G}/v2/namespaces/ns1/virtualmachineinstances/vmi1/console`,
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: review('get', 'virtualmachineinstances/console/vmi1', 'v2'),
      },
    ],
    [
      'expand-vm-spec',
      'PUT',
      `${G}/v1/namespaces/ns1/expand-vm-spec`,
      {
        kind: 'route',
        route: { kind: 'expand-vm-spec', version: 'v1', namespace: 'ns1' },
        access: {
          kind: 'review',
          attributes: {
            namespace: 'ns1',
            verb: 'update',
            group: 'subresources.kubevirt.io',
            version: 'v1',
            resource: 'expand-vm-spec',
          },
        },
      },
    ],
    [
      'the resource list',
      'GET',
      `${G}/v1`,
      { kind: 'route', route: { kind: 'resource-list', version: 'v1' }, access: pub },
    ],
    [
      'the resource list with a slash: routed, but not public',
      'GET',
      `${G}/v1alpha3/`,
      {
        kind: 'route',
        route: { kind: 'resource-list', version: 'v1alpha3' },
        access: refused(`unknown api endpoint: ${G}/v1alpha3/`),
      },
    ],
    [
      'version',
      'GET',
      `${G}/v1/version`,
      { kind: 'route', route: { kind: 'version-endpoint', version: 'v1', endpoint: 'version' }, access: pub },
    ],
    [
      'healthz under a version',
      'GET',
      `${G}/v1alpha3/healthz`,
      {
        kind: 'route',
        route: { kind: 'version-endpoint', version: 'v1alpha3', endpoint: 'healthz' },
        access: pub,
      },
    ],
    [
      'version is GET only',
      'PUT',
      `${G}/v1/version`,
      { kind: 'error', status: 405, message: METHOD_NOT_ALLOWED_TEXT, allow: 'GET', access: pub },
    ],
    [
      'the API group: routed, but the authorizer knows no such endpoint',
      'GET',
      G,
      {
        kind: 'route',
        route: { kind: 'root', endpoint: 'api-group' },
        access: refused(`unknown api endpoint: ${G}`),
      },
    ],
    [
      'the group list',
      'GET',
      '/apis',
      { kind: 'route', route: { kind: 'root', endpoint: 'api-group-list' }, access: pub },
    ],
    [
      'root paths',
      'GET',
      '/',
      { kind: 'route', route: { kind: 'root', endpoint: 'root-paths' }, access: pub },
    ],
    [
      'healthz',
      'GET',
      '/healthz',
      { kind: 'route', route: { kind: 'root', endpoint: 'healthz' }, access: pub },
    ],
    [
      'openapi',
      'GET',
      '/openapi/v2',
      { kind: 'route', route: { kind: 'root', endpoint: 'openapi-v2' }, access: pub },
    ],
    [
      'an unknown root path',
      'GET',
      '/metrics',
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: refused('unknown api endpoint: /metrics'),
      },
    ],
    [
      'an empty name segment',
      'PUT',
      `${G}/v1/namespaces/ns1/virtualmachines//start`,
      {
        kind: 'error',
        status: 404,
        message: NOT_FOUND_TEXT,
        access: review('update', 'virtualmachines/start/'),
      },
    ],
    [
      'OPTIONS: the methods, before any review',
      'OPTIONS',
      `${VMI}/unfreeze`,
      { kind: 'options', allow: 'PUT' },
    ],
    ['OPTIONS of an unknown path', 'OPTIONS', '/nope', { kind: 'options', allow: '' }],
  ])('%s', (_name, method, target, want) => {
    expect(matchRequest(method, target)).toEqual(want);
  });
});

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
  ])('%s', (_name, method, path, want) => {
    expect(accessFor(method, path)).toEqual(want);
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
