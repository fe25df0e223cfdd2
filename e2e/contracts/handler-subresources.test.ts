/**
 * The subresource contract between the api and the handler: both routers serve exactly the VMI subresources of
 * lib/kubevirt/subresources/handler-subresources.ts with their methods (another method is 405 allowing that
 * one), the call the api forwards for each is one the handler routes, and of the api's other VMI subresources
 * the handler serves none. A change on one side alone fails here.
 */
import { describe, expect, it } from '@jest/globals';
import { matchRequest, SUBRESOURCE_ROUTES } from '../../lib/apiserver/rest/routes.ts';
import { handlerCall } from '../../lib/apiserver/rest/vmi/handler-call.ts';
import { matchRoute } from '../../lib/handler/rest/routes.ts';
import {
  HANDLER_SUBRESOURCE_METHODS,
  HANDLER_SUBRESOURCES,
  type HandlerMethod,
  type HandlerSubresource,
} from '../../lib/kubevirt/subresources/handler-subresources.ts';
import { vmi as vmiFixture } from '../../lib/kubevirt/testing/objects.ts';

const API_VMI = '/apis/subresources.kubevirt.io/v1/namespaces/ns1/virtualmachineinstances/vmi1';
const HANDLER_VMI = '/v1/namespaces/ns1/virtualmachineinstances/vmi1';
const other = (m: HandlerMethod): HandlerMethod => (m === 'GET' ? 'PUT' : 'GET');
const rows = Object.entries(HANDLER_SUBRESOURCE_METHODS) as [HandlerSubresource, HandlerMethod][];
/** portforward's path goes on with the port (the api's protocol is optional, the handler's is not). */
const handlerTail = (sub: HandlerSubresource): string => (sub === 'portforward' ? '/22/tcp' : '');
const apiTail = (sub: HandlerSubresource): string => (sub === 'portforward' ? '/22' : '');

describe('the VMI subresources the handler serves', () => {
  it.each(rows)('the handler serves %s on %s only', (sub, method) => {
    expect(matchRoute(method, `${HANDLER_VMI}/${sub}${handlerTail(sub)}`)).toEqual({
      ok: true,
      route: sub,
      namespace: 'ns1',
      name: 'vmi1',
      ...(sub === 'portforward' && { port: '22', protocol: 'tcp' }),
    });
    expect(matchRoute(other(method), `${HANDLER_VMI}/${sub}${handlerTail(sub)}`)).toMatchObject({
      status: 405,
      allow: method,
    });
  });

  it.each(rows)('the api serves %s on %s only', (sub, method) => {
    expect(matchRequest(method, `${API_VMI}/${sub}${apiTail(sub)}`)).toMatchObject({
      kind: 'route',
      route: { kind: 'subresource', resource: 'virtualmachineinstances', subresource: sub },
    });
    expect(matchRequest(other(method), `${API_VMI}/${sub}${apiTail(sub)}`)).toMatchObject({
      status: 405,
      allow: method,
    });
  });

  it.each(rows)('the api forwards %s as a call the handler routes', (sub, method) => {
    const v = vmiFixture((x) => {
      x.metadata.namespace = 'ns1';
      x.metadata.name = 'vmi1';
    });
    const call = handlerCall(v, sub, { body: 'none' });
    expect(call).toMatchObject({ method, kind: HANDLER_SUBRESOURCES[sub] });
    expect(matchRoute(call.method, `${call.path}${handlerTail(sub)}`)).toMatchObject({
      ok: true,
      route: sub,
    });
  });

  it('leaves every other VMI subresource of the api to the api', () => {
    const apiOnly = Object.keys(SUBRESOURCE_ROUTES.virtualmachineinstances).filter(
      (s) => !Object.hasOwn(HANDLER_SUBRESOURCES, s),
    );
    expect(apiOnly.length).toBeGreaterThan(0);
    for (const s of apiOnly)
      for (const m of ['GET', 'PUT'])
        expect(matchRoute(m, `${HANDLER_VMI}/${s}`)).toMatchObject({ ok: false, status: 404 });
  });
});
