import { describe, expect, it } from '@jest/globals';
import { apiGroup, apiGroupList, apiResourceList, DISCOVERED_SUBRESOURCES, rootPaths } from './discovery.ts';
import { matchRequest } from './routes.ts';

/** The APIResourceList names as kubevirt/kubevirt v1.6.2 pkg/virt-api/api.go lists them (+ the fork's two). */
const KUBEVIRT_LIST = [
  'expand-vm-spec',
  'virtualmachineinstances/vnc',
  'virtualmachineinstances/console',
  'virtualmachineinstances/portforward',
  'virtualmachineinstances/pause',
  'virtualmachineinstances/unpause',
  'virtualmachineinstances/freeze',
  'virtualmachineinstances/unfreeze',
  'virtualmachineinstances/reset',
  'virtualmachineinstances/softreboot',
  'virtualmachines/start',
  'virtualmachines/stop',
  'virtualmachines/restart',
  'virtualmachines/migrate',
  'virtualmachines/expand-spec',
  'virtualmachines/evacuatecancel',
  'virtualmachines/objectgraph',
  'virtualmachineinstances/guestosinfo',
  'virtualmachineinstances/userlist',
  'virtualmachineinstances/filesystemlist',
  'virtualmachineinstances/addvolume',
  'virtualmachineinstances/removevolume',
  'virtualmachineinstances/objectgraph',
  'virtualmachineinstances/sev/fetchcertchain',
  'virtualmachineinstances/sev/querylaunchmeasurement',
  'virtualmachineinstances/sev/setupsession',
  'virtualmachineinstances/sev/injectlaunchsecret',
  'virtualmachineinstances/evacuatecancel',
];

const group = {
  kind: 'APIGroup',
  name: 'subresource.kubevirt.io',
  versions: [
    { groupVersion: 'subresources.kubevirt.io/v1', version: 'v1' },
    { groupVersion: 'subresources.kubevirt.io/v1alpha3', version: 'v1alpha3' },
  ],
  preferredVersion: { groupVersion: 'subresources.kubevirt.io/v1', version: 'v1' },
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }],
};

describe('discovery', () => {
  it('serves the APIGroup as KubeVirt writes it (its name without the s)', () => {
    expect(JSON.stringify(apiGroup())).toBe(JSON.stringify(group));
  });

  it('lists that group under /apis', () => {
    expect(JSON.stringify(apiGroupList())).toBe(JSON.stringify({ kind: 'APIGroupList', groups: [group] }));
  });

  it.each(['v1', 'v1alpha3'] as const)('lists the subresources of %s', (version) => {
    const list = apiResourceList(version);
    expect(list.kind).toBe('APIResourceList');
    expect(list.apiVersion).toBe('v1');
    expect(list.groupVersion).toBe(`subresources.kubevirt.io/${version}`);
    expect(list.resources.map((r) => r.name)).toEqual(KUBEVIRT_LIST);
    expect(JSON.stringify(list.resources[1])).toBe(
      '{"name":"virtualmachineinstances/vnc","singularName":"","namespaced":true,"kind":"","verbs":null}',
    );
  });

  it('lists nothing that is not routed', () => {
    const methods: Record<string, string> = { 'expand-vm-spec': 'PUT' };
    for (const name of DISCOVERED_SUBRESOURCES) {
      const path =
        name === 'expand-vm-spec'
          ? '/apis/subresources.kubevirt.io/v1/namespaces/ns/expand-vm-spec'
          : `/apis/subresources.kubevirt.io/v1/namespaces/ns/${name.replace('/', '/x/')}${name.endsWith('portforward') ? '/22' : ''}`;
      const m = matchRequest(methods[name] ?? 'GET', path);
      expect({ name, kind: m.kind === 'error' ? m.status : m.kind }).not.toEqual({ name, kind: 404 });
    }
  });

  it('gives the root paths, the group once per version', () => {
    expect(rootPaths()).toEqual({
      paths: [
        '/apis',
        '/openapi/v2',
        '/apis/subresources.kubevirt.io',
        '/apis/subresources.kubevirt.io/v1',
        '/apis/subresources.kubevirt.io',
        '/apis/subresources.kubevirt.io/v1alpha3',
      ],
    });
  });
});
