import { describe, expect, it } from '@jest/globals';
import { goldens } from '../../kernel/testing/golden.ts';
import type { ComponentPatch, InstallConfig, Rendered } from '../config/install-config.ts';
import { customize } from './customize.ts';
import { CUSTOMIZER_ANNOTATION, customizerHash } from './identifier.ts';

type Customizations = Pick<InstallConfig, 'patches' | 'flags'>;

const g = goldens(import.meta.url);
const noFlags: Customizations['flags'] = { 'virt-api': {}, 'virt-controller': {}, 'virt-handler': {} };
const none: Customizations = { patches: [], flags: noFlags };

const object = (
  apiVersion: string,
  kind: string,
  name: string,
  rest: Record<string, unknown> = {},
): Rendered => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'd8-virtualization' },
  ...rest,
});

const workload = (kind: string, name: string, role: string): Rendered =>
  object('apps/v1', kind, name, {
    spec: { replicas: 2, template: { spec: { containers: [{ name, args: [role, '--port', '8443'] }] } } },
  });

const INSTALL: Rendered[] = [
  workload('Deployment', 'virt-api', 'api'),
  workload('Deployment', 'virt-controller', 'controller'),
  workload('DaemonSet', 'virt-handler', 'handler'),
  object('v1', 'Service', 'virt-api', { spec: { ports: [{ port: 443, targetPort: 8443 }] } }),
  object('v1', 'Secret', 'kubevirt-ca'),
  object('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'virt-api-validator'),
  object('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'virt-api-mutator'),
  object('apiregistration.k8s.io/v1', 'APIService', 'v1.subresources.kubevirt.io'),
  object('v1', 'ServiceAccount', 'virt-api'),
  object('v1', 'ConfigMap', 'kubevirt-ca'),
  object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'virt-api'),
  object('policy/v1', 'PodDisruptionBudget', 'virt-api'),
];

const CUSTOMIZED = INSTALL.slice(0, 8).map((o) => `${o.kind}/${o.metadata.name ?? ''}`);

const label = (resourceType: string, resourceName: string): ComponentPatch => ({
  resourceType,
  resourceName,
  type: 'merge',
  patch: '{"metadata":{"labels":{"hit":"yes"}}}',
});

const hits = (objects: Rendered[]): string[] =>
  objects
    .filter((o) => o.metadata.labels?.['hit'] === 'yes')
    .map((o) => `${o.kind}/${o.metadata.name ?? ''}`);

const spec = (o: Rendered | undefined): unknown => o?.['spec'];

describe('customize', () => {
  it("applies Deckhouse's patches (templates/kubevirt/kubevirt.yaml, rendered) to objects shaped like KubeVirt's", () => {
    const objects = JSON.parse(g.read('deckhouse-objects.in.json')) as Rendered[];
    const patches = JSON.parse(g.read('deckhouse-patches.in.json')) as ComponentPatch[];
    const out = customize(objects, { patches, flags: noFlags });
    g.expectJson('deckhouse.out.json', out);
    const [api, controller, handler, service] = out;
    expect(spec(api)).toMatchObject({
      replicas: 3,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      template: {
        spec: {
          containers: [
            { name: 'proxy' },
            {
              name: 'virt-api',
              args: ['--port', '8443', '--console-server-port', '4101', '--subresources-only', '-v', '2'],
            },
          ],
        },
      },
    });
    expect(spec(controller)).toMatchObject({
      template: { spec: { nodeSelector: { 'node-role.deckhouse.io/system': '' } } },
    });
    expect(spec(handler)).toMatchObject({
      template: { spec: { hostNetwork: true, tolerations: [{ operator: 'Exists' }] } },
    });
    expect(spec(service)).toMatchObject({
      ports: [
        { name: 'webhook-proxy', port: 24192 },
        { name: 'https', port: 443 },
      ],
    });
  });

  it.each<[string, ComponentPatch, string[]]>([
    ['a kind and a name', label('Deployment', 'virt-api'), ['Deployment/virt-api']],
    ['case-insensitively', label('deployment', 'VIRT-API'), ['Deployment/virt-api']],
    ['* for any name', label('Deployment', '*'), ['Deployment/virt-api', 'Deployment/virt-controller']],
    [
      '* for any kind KubeVirt customizes',
      label('*', 'virt-api'),
      ['Deployment/virt-api', 'Service/virt-api'],
    ],
    ['* for both', label('*', '*'), CUSTOMIZED],
    ['Secrets', label('Secret', '*'), ['Secret/kubevirt-ca']],
    ['nothing of a kind KubeVirt does not customize', label('ServiceAccount', '*'), []],
    ['nothing of another name', label('Deployment', 'virt-operator'), []],
  ])('matches %s', (_name, patch, expected) => {
    expect(hits(customize(INSTALL, { patches: [patch], flags: noFlags }))).toEqual(expected);
  });

  it('marks every object it customizes with the hash of the customizations, and only those', () => {
    const c: Customizations = { patches: [label('Deployment', 'virt-api')], flags: noFlags };
    const marked = customize(INSTALL, c).map((o) => o.metadata.annotations?.[CUSTOMIZER_ANNOTATION]);
    expect(marked).toEqual(INSTALL.map((_, i) => (i < CUSTOMIZED.length ? customizerHash(c) : undefined)));
    expect(customizerHash(c)).not.toBe(customizerHash(none));
  });

  it('applies the shortest patch text first, whatever the order they come in', () => {
    const replicas = (value: number, pad: string): ComponentPatch => ({
      resourceType: 'Deployment',
      resourceName: 'virt-api',
      type: 'json',
      patch: `[{"op":"replace","path":"/spec/replicas",${pad}"value":${String(value)}}]`,
    });
    const [api] = customize(INSTALL, { patches: [replicas(5, ' '), replicas(3, '')], flags: noFlags });
    expect(spec(api)).toMatchObject({ replicas: 5 });
  });

  it('adds the flags after the patches', () => {
    const args: ComponentPatch = {
      resourceType: 'Deployment',
      resourceName: 'virt-api',
      type: 'strategic',
      patch:
        '{"spec":{"template":{"spec":{"containers":[{"name":"virt-api","args":["api","--port","1"]}]}}}}',
    };
    const [api] = customize(INSTALL, { patches: [args], flags: { ...noFlags, 'virt-api': { v: '4' } } });
    expect(spec(api)).toMatchObject({
      template: { spec: { containers: [{ args: ['api', '-v', '4', '--port', '1'] }] } },
    });
  });

  it('does not even read a patch that matches nothing', () => {
    const broken: ComponentPatch = {
      resourceType: 'Deployment',
      resourceName: 'nope',
      type: 'json',
      patch: '[{',
    };
    expect(() => customize(INSTALL, { patches: [broken], flags: noFlags })).not.toThrow();
  });

  it.each<[ComponentPatch, string | RegExp]>([
    [
      { resourceType: 'Deployment', resourceName: '*', type: 'json', patch: '[{' },
      /^spec\.customizeComponents\.patches\[1\] \(json, Deployment \*\) on Deployment virt-api: the patch is not valid JSON \(.+\)$/,
    ],
    [
      {
        resourceType: 'DaemonSet',
        resourceName: 'virt-handler',
        type: 'json',
        patch: '[{"op":"replace","path":"/spec/template/spec/containers/3/ports","value":[]}]',
      },
      'spec.customizeComponents.patches[1] (json, DaemonSet virt-handler) on DaemonSet virt-handler: operation 0 (replace /spec/template/spec/containers/3/ports): path /spec/template/spec/containers/3 does not exist',
    ],
    [
      {
        resourceType: 'Service',
        resourceName: 'virt-api',
        type: 'json',
        patch: '[{"op":"remove","path":"/kind"}]',
      },
      'spec.customizeComponents.patches[1] (json, Service virt-api) on Service virt-api: the result has no apiVersion, kind or metadata',
    ],
    [
      {
        resourceType: 'Service',
        resourceName: 'virt-api',
        type: 'strategic',
        patch: '{"spec":{"ports":[{"name":"x"}]}}',
      },
      'spec.customizeComponents.patches[1] (strategic, Service virt-api) on Service virt-api: spec.ports: an item has no merge key "port"',
    ],
  ])('names the patch that fails: %j', (patch, message) => {
    const c: Customizations = { patches: [label('ConfigMap', '*'), patch], flags: noFlags };
    const expected = typeof message === 'string' ? message : expect.stringMatching(message);
    expect(() => customize(INSTALL, c)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CUSTOMIZE', message: expected }),
    );
  });

  it('leaves its inputs alone and returns objects that share nothing with them', () => {
    const before = structuredClone(INSTALL);
    const out = customize(INSTALL, none);
    for (const o of out) o.metadata.name = 'changed';
    expect(INSTALL).toEqual(before);
  });
});
