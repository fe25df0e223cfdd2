import { describe, expect, it } from '@jest/globals';
import { HANDLER_SUBRESOURCE_METHODS } from '../../kubevirt/subresources/handler-subresources.ts';
import { matchRoute, METHOD_NOT_ALLOWED_TEXT, NOT_FOUND_TEXT, type RouteName } from './routes.ts';

const base = '/v1/namespaces/ns1/virtualmachineinstances/vm1';

describe('matchRoute', () => {
  it.each<[RouteName, string]>([
    ['console', 'GET'],
    ['vnc', 'GET'],
    ['pause', 'PUT'],
    ['unpause', 'PUT'],
    ['freeze', 'PUT'],
    ['unfreeze', 'PUT'],
    ['softreboot', 'PUT'],
    ['reset', 'PUT'],
    ['guestosinfo', 'GET'],
    ['userlist', 'GET'],
    ['filesystemlist', 'GET'],
  ])('%s is served on %s', (route, method) => {
    expect(matchRoute(method, `${base}/${route}`)).toEqual({
      ok: true,
      route,
      namespace: 'ns1',
      name: 'vm1',
    });
    expect(HANDLER_SUBRESOURCE_METHODS[route]).toBe(method);
  });

  it.each<[string, string, string]>([
    ['PUT', `${base}/console`, 'GET'],
    ['POST', `${base}/vnc`, 'GET'],
    ['GET', `${base}/pause`, 'PUT'],
    ['DELETE', `${base}/freeze`, 'PUT'],
    ['PUT', `${base}/guestosinfo`, 'GET'],
  ])('%s %s answers 405 allowing %s', (method, path, allow) => {
    expect(matchRoute(method, path)).toEqual({
      ok: false,
      status: 405,
      message: METHOD_NOT_ALLOWED_TEXT,
      allow,
    });
  });

  it.each([
    '/',
    '/v1',
    base,
    `${base}/`,
    `${base}/usbredir`,
    `${base}/console/extra`,
    '/v1/namespaces/ns1/virtualmachines/vm1/console',
    '/v2/namespaces/ns1/virtualmachineinstances/vm1/console',
    '/v1/namespaces//virtualmachineinstances/vm1/console',
    '/v1/namespaces/ns1/virtualmachineinstances//console',
    '/v1/namespaces/ns1/virtualmachineinstances/%E0%A4%A/console',
    '/v1/namespaces/ns1/virtualmachineinstances/a%2Fb/console',
    `${base}/toString`,
    `${base}/__proto__`,
  ])('%s is not found', (path) => {
    expect(matchRoute('GET', path)).toEqual({ ok: false, status: 404, message: NOT_FOUND_TEXT });
  });

  it('ignores the query and decodes the path parameters', () => {
    expect(
      matchRoute('GET', '/v1/namespaces/n%2Ds/virtualmachineinstances/vm%201/vnc?preserveSession=true'),
    ).toEqual({ ok: true, route: 'vnc', namespace: 'n-s', name: 'vm 1' });
  });
});
