import { describe, expect, it } from '@jest/globals';
import type { Access } from './access.ts';
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

/** A review of `subresource/name` on VMIs (v1) or, with a `vm:` prefix, on VMs (v1alpha3), in namespace ns1. */
function review(verb: string, target: string, version?: string): Access {
  const vm = target.startsWith('vm:');
  const [subresource = '', name = vm ? 'vm1' : 'vmi1'] = target.replace(/^vm:/, '').split('@');
  const resource = vm ? 'virtualmachines' : 'virtualmachineinstances';
  const v = version ?? (vm ? 'v1alpha3' : 'v1');
  return {
    kind: 'review',
    attributes: {
      namespace: 'ns1',
      verb,
      group: 'subresources.kubevirt.io',
      version: v,
      resource,
      subresource,
      name,
    },
  };
}
const sub = (subresource: string, extra: Partial<Route> = {}): Route =>
  ({
    kind: 'subresource',
    version: 'v1',
    resource: 'virtualmachineinstances',
    namespace: 'ns1',
    name: 'vmi1',
    subresource,
    ...extra,
  }) as Route;
const vmSub = (subresource: string): Route =>
  sub(subresource, { version: 'v1alpha3', resource: 'virtualmachines', name: 'vm1' });
const routed = (route: Route, access: Access): RouteMatch => ({ kind: 'route', route, access });
const missing = (access: Access): RouteMatch => ({
  kind: 'error',
  status: 404,
  message: NOT_FOUND_TEXT,
  access,
});
const notAllowed = (allow: string, access: Access): RouteMatch => ({
  kind: 'error',
  status: 405,
  message: METHOD_NOT_ALLOWED_TEXT,
  allow,
  access,
});
const pub: Access = { kind: 'public' };
const refused = (reason: string): Access => ({ kind: 'refused', reason });

describe('matchRequest', () => {
  it.each<[string, string, string, RouteMatch]>([
    ['console is a GET', 'GET', `${VMI}/console`, routed(sub('console'), review('get', 'console'))],
    ['freeze is a PUT', 'PUT', `${VMI}/freeze`, routed(sub('freeze'), review('update', 'freeze'))],
    ['guestosinfo', 'GET', `${VMI}/guestosinfo`, routed(sub('guestosinfo'), review('get', 'guestosinfo'))],
    [
      'a query is cut off',
      'GET',
      `${VMI}/vnc?preserveSession=true`,
      routed(sub('vnc'), review('get', 'vnc')),
    ],
    [
      'vnc/screenshot: reviewed as vnc',
      'GET',
      `${VMI}/vnc/screenshot`,
      routed(sub('vnc/screenshot'), review('get', 'vnc')),
    ],
    [
      'portforward with a port',
      'GET',
      `${VMI}/portforward/22`,
      routed(sub('portforward', { port: '22' }), review('get', 'portforward')),
    ],
    [
      'portforward with a protocol',
      'GET',
      `${VMI}/portforward/53/udp`,
      routed(sub('portforward', { port: '53', protocol: 'udp' }), review('get', 'portforward')),
    ],
    ['portforward without a port', 'GET', `${VMI}/portforward`, missing(review('get', 'portforward'))],
    ['VM start on v1alpha3', 'PUT', `${VM}/start`, routed(vmSub('start'), review('update', 'vm:start'))],
    ['VM addvolume', 'PUT', `${VM}/addvolume`, routed(vmSub('addvolume'), review('update', 'vm:addvolume'))],
    [
      'VM evacuatecancel (fork)',
      'PUT',
      `${VM}/evacuatecancel`,
      routed(vmSub('evacuatecancel'), review('update', 'vm:evacuatecancel')),
    ],
    [
      'a trailing slash is ignored by the router',
      'PUT',
      `${VMI}/pause/`,
      routed(sub('pause'), review('update', 'pause')),
    ],
    [
      'a percent-encoded name',
      'PUT',
      `${G}/v1/namespaces/ns1/virtualmachineinstances/vm%2Dx/reset`,
      routed(sub('reset', { name: 'vm-x' }), review('update', 'reset@vm-x')),
    ],
    [
      'a wrong method: 405, after the review (verb patch)',
      'PATCH',
      `${VMI}/pause`,
      notAllowed('PUT', review('patch', 'pause')),
    ],
    ['console with PUT', 'PUT', `${VMI}/console`, notAllowed('GET', review('update', 'console'))],
    ['a VM has no console', 'GET', `${VM}/console`, missing(review('get', 'vm:console'))],
    ['an unknown subresource', 'PUT', `${VMI}/explode`, missing(review('update', 'explode'))],
    [
      'an unknown resource',
      'GET',
      `${G}/v1/namespaces/ns1/pods/p/console`,
      missing(refused('unknown resource type pods')),
    ],
    [
      'an unknown version',
      'GET',
      `${G}/v2/namespaces/ns1/virtualmachineinstances/vmi1/console`,
      missing(review('get', 'console', 'v2')),
    ],
    [
      'an empty name segment',
      'PUT',
      `${G}/v1alpha3/namespaces/ns1/virtualmachines//start`,
      missing(review('update', 'vm:start@')),
    ],
    [
      'expand-vm-spec',
      'PUT',
      `${G}/v1/namespaces/ns1/expand-vm-spec`,
      routed(
        { kind: 'expand-vm-spec', version: 'v1', namespace: 'ns1' },
        {
          kind: 'review',
          attributes: {
            namespace: 'ns1',
            verb: 'update',
            group: 'subresources.kubevirt.io',
            version: 'v1',
            resource: 'expand-vm-spec',
          },
        },
      ),
    ],
    ['the resource list', 'GET', `${G}/v1`, routed({ kind: 'resource-list', version: 'v1' }, pub)],
    [
      'the resource list with a slash: the same tokens, so public too',
      'GET',
      `${G}/v1alpha3/`,
      routed({ kind: 'resource-list', version: 'v1alpha3' }, pub),
    ],
    [
      'a leading double slash: routed and reviewed alike',
      'GET',
      `/${VMI}/console`,
      routed(sub('console'), review('get', 'console')),
    ],
    [
      'an escaped subresource: routed and reviewed alike',
      'GET',
      `${VMI}/%63onsole`,
      routed(sub('console'), review('get', 'console')),
    ],
    [
      'an escaped slash in the name: neither routed nor reviewed',
      'PUT',
      `${G}/v1/namespaces/ns1/virtualmachineinstances/vmi1%2Fconsole/pause`,
      missing(refused('unknown api endpoint')),
    ],
    [
      'an empty segment after the name: reviewed as the VMI itself, not served',
      'GET',
      `${VMI}//console`,
      missing(review('get', '@vmi1')),
    ],
    [
      'version',
      'GET',
      `${G}/v1/version`,
      routed({ kind: 'version-endpoint', version: 'v1', endpoint: 'version' }, pub),
    ],
    [
      'healthz of a version',
      'GET',
      `${G}/v1alpha3/healthz`,
      routed({ kind: 'version-endpoint', version: 'v1alpha3', endpoint: 'healthz' }, pub),
    ],
    ['version is GET only', 'PUT', `${G}/v1/version`, notAllowed('GET', pub)],
    [
      'the API group: routed, but no endpoint to the authorizer',
      'GET',
      G,
      routed({ kind: 'root', endpoint: 'api-group' }, refused(`unknown api endpoint: ${G}`)),
    ],
    ['the group list', 'GET', '/apis', routed({ kind: 'root', endpoint: 'api-group-list' }, pub)],
    ['root paths', 'GET', '/', routed({ kind: 'root', endpoint: 'root-paths' }, pub)],
    ['healthz', 'GET', '/healthz', routed({ kind: 'root', endpoint: 'healthz' }, pub)],
    ['openapi', 'GET', '/openapi/v2', routed({ kind: 'root', endpoint: 'openapi-v2' }, pub)],
    ['an unknown root path', 'GET', '/metrics', missing(refused('unknown api endpoint: /metrics'))],
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

  it.each([
    ['GET', `//${VMI.slice(1)}/vnc`],
    ['GET', `${VMI}/vnc/screenshot/`],
    ['GET', `${G}/v1/namespaces/n%73/virtualmachineinstances/v%6di/console`],
    ['GET', `${G}/v1/namespaces/ns1/virtualmachineinstances/a%2Eb/portforward/22/tcp`],
    ['PUT', `${VM}/%73tart?x=%2F`],
  ])('reviews the namespace, name and subresource it serves: %s %s', (method, target) => {
    const m = matchRequest(method, target);
    if (m.kind !== 'route' || m.route.kind !== 'subresource' || m.access.kind !== 'review')
      throw new Error(`not a reviewed subresource: ${JSON.stringify(m)}`);
    const { namespace, name, subresource } = m.access.attributes;
    expect({ namespace, name, subresource }).toEqual({
      namespace: m.route.namespace,
      name: m.route.name,
      subresource: m.route.subresource.split('/')[0],
    });
  });
});
