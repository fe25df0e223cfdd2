import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from './json.ts';
import { applyStrategicMerge } from './strategic-merge.ts';

// Each expected result is what apimachinery's strategicpatch.StrategicMergePatch returns for the same input.
const APPLIED: [string, JsonObject & { kind: string }, JsonObject, JsonObject][] = [
  [
    'containers merge by name; a new one goes before the items only the original has',
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'api', image: 'a' }] } } } },
    { spec: { template: { spec: { containers: [{ name: 'proxy', image: 'p' }] } } } },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [
              { image: 'p', name: 'proxy' },
              { image: 'a', name: 'api' },
            ],
          },
        },
      },
    },
  ],
  [
    "the patch's items keep the patch's order, the original's others keep their place",
    {
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } } },
    },
    { spec: { template: { spec: { containers: [{ name: 'b', image: 'x' }, { name: 'd' }] } } } },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: { containers: [{ name: 'a' }, { image: 'x', name: 'b' }, { name: 'd' }, { name: 'c' }] },
        },
      },
    },
  ],
  [
    'env merges by name',
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'api',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
              },
            ],
          },
        },
      },
    },
    {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'api',
                env: [
                  { name: 'B', value: '20' },
                  { name: 'C', value: '3' },
                ],
              },
            ],
          },
        },
      },
    },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [
              {
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '20' },
                  { name: 'C', value: '3' },
                ],
                name: 'api',
              },
            ],
          },
        },
      },
    },
  ],
  [
    'container ports merge by containerPort',
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: { containers: [{ name: 'api', ports: [{ containerPort: 8443, name: 'https' }] }] },
        },
      },
    },
    {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'api',
                ports: [
                  { containerPort: 8443, protocol: 'TCP' },
                  { containerPort: 2345, name: 'dlv' },
                ],
              },
            ],
          },
        },
      },
    },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'api',
                ports: [
                  { containerPort: 8443, name: 'https', protocol: 'TCP' },
                  { containerPort: 2345, name: 'dlv' },
                ],
              },
            ],
          },
        },
      },
    },
  ],
  [
    'volumeMounts merge by mountPath',
    {
      kind: 'Deployment',
      spec: {
        template: { spec: { containers: [{ name: 'api', volumeMounts: [{ name: 'a', mountPath: '/a' }] }] } },
      },
    },
    {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'api', volumeMounts: [{ name: 'b', mountPath: '/a', readOnly: true }] }],
          },
        },
      },
    },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [{ name: 'api', volumeMounts: [{ mountPath: '/a', name: 'b', readOnly: true }] }],
          },
        },
      },
    },
  ],
  [
    'initContainers merge by name',
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: { initContainers: [{ name: 'i', securityContext: { privileged: true } }], containers: [] },
        },
      },
    },
    { spec: { template: { spec: { initContainers: [{ name: 'i', securityContext: { runAsUser: 0 } }] } } } },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            containers: [],
            initContainers: [{ name: 'i', securityContext: { privileged: true, runAsUser: 0 } }],
          },
        },
      },
    },
  ],
  [
    'volumes merge by name (a hostPath changed in place)',
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            volumes: [
              { name: 'certs', secret: { secretName: 's' } },
              { name: 'nl', hostPath: { path: '/var/lib/x' } },
            ],
          },
        },
      },
    },
    { spec: { template: { spec: { volumes: [{ name: 'nl', hostPath: { path: '/var/run/y' } }] } } } },
    {
      kind: 'Deployment',
      spec: {
        template: {
          spec: {
            volumes: [
              { name: 'certs', secret: { secretName: 's' } },
              { hostPath: { path: '/var/run/y' }, name: 'nl' },
            ],
          },
        },
      },
    },
  ],
  [
    'imagePullSecrets merge by name',
    { kind: 'Deployment', spec: { template: { spec: { imagePullSecrets: [{ name: 'a' }] } } } },
    { spec: { template: { spec: { imagePullSecrets: [{ name: 'b' }] } } } },
    {
      kind: 'Deployment',
      spec: { template: { spec: { imagePullSecrets: [{ name: 'b' }, { name: 'a' }] } } },
    },
  ],
  [
    'tolerations are atomic: replaced',
    { kind: 'Deployment', spec: { template: { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } } } },
    { spec: { template: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } } } },
    { kind: 'Deployment', spec: { template: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } } } },
  ],
  [
    'args are atomic: replaced',
    {
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'api', args: ['api', '--port', '8443'] }] } } },
    },
    { spec: { template: { spec: { containers: [{ name: 'api', args: ['--port', '9'] }] } } } },
    {
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ args: ['--port', '9'], name: 'api' }] } } },
    },
  ],
  [
    'finalizers merge as a set of scalars',
    { kind: 'Deployment', metadata: { finalizers: ['a', 'b'] } },
    { metadata: { finalizers: ['c', 'a'] } },
    { kind: 'Deployment', metadata: { finalizers: ['c', 'a', 'b'] } },
  ],
  [
    'ownerReferences merge by uid',
    { kind: 'Deployment', metadata: { ownerReferences: [{ uid: '1', name: 'x' }] } },
    {
      metadata: {
        ownerReferences: [
          { uid: '2', name: 'y' },
          { uid: '1', controller: true },
        ],
      },
    },
    {
      kind: 'Deployment',
      metadata: {
        ownerReferences: [
          { name: 'y', uid: '2' },
          { controller: true, name: 'x', uid: '1' },
        ],
      },
    },
  ],
  [
    'maps merge key by key',
    { kind: 'Deployment', spec: { template: { spec: { nodeSelector: { a: '1' } } } } },
    { spec: { template: { spec: { nodeSelector: { b: '2' } } } } },
    { kind: 'Deployment', spec: { template: { spec: { nodeSelector: { a: '1', b: '2' } } } } },
  ],
  [
    'Service ports merge by port',
    { kind: 'Service', spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } },
    { spec: { ports: [{ name: 'webhook-proxy', port: 24192, targetPort: 'webhook-proxy' }] } },
    {
      kind: 'Service',
      spec: {
        ports: [
          { name: 'webhook-proxy', port: 24192, targetPort: 'webhook-proxy' },
          { name: 'https', port: 443, targetPort: 8443 },
        ],
      },
    },
  ],
  [
    "webhooks merge by name (the port of one webhook's service)",
    {
      kind: 'ValidatingWebhookConfiguration',
      webhooks: [
        { name: 'a', clientConfig: { service: { name: 'virt-api', path: '/a', port: 443 } } },
        { name: 'b', clientConfig: { service: { name: 'virt-api', path: '/b', port: 443 } } },
      ],
    },
    { webhooks: [{ name: 'b', clientConfig: { service: { port: 24192 } } }] },
    {
      kind: 'ValidatingWebhookConfiguration',
      webhooks: [
        { clientConfig: { service: { name: 'virt-api', path: '/a', port: 443 } }, name: 'a' },
        { clientConfig: { service: { name: 'virt-api', path: '/b', port: 24192 } }, name: 'b' },
      ],
    },
  ],
  [
    'matchConditions of a webhook merge by name',
    {
      kind: 'MutatingWebhookConfiguration',
      webhooks: [{ name: 'a', matchConditions: [{ name: 'x', expression: 'true' }] }],
    },
    { webhooks: [{ name: 'a', matchConditions: [{ name: 'y', expression: 'false' }] }] },
    {
      kind: 'MutatingWebhookConfiguration',
      webhooks: [
        {
          matchConditions: [
            { expression: 'false', name: 'y' },
            { expression: 'true', name: 'x' },
          ],
          name: 'a',
        },
      ],
    },
  ],
  [
    'ServiceAccount secrets merge by name',
    { kind: 'ServiceAccount', secrets: [{ name: 'a' }] },
    { secrets: [{ name: 'b' }] },
    { kind: 'ServiceAccount', secrets: [{ name: 'b' }, { name: 'a' }] },
  ],
  [
    "a PodDisruptionBudget's selector is replaced whole",
    { kind: 'PodDisruptionBudget', spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } } },
    { spec: { selector: { matchLabels: { c: 'd' } } } },
    { kind: 'PodDisruptionBudget', spec: { minAvailable: 1, selector: { matchLabels: { c: 'd' } } } },
  ],
  [
    'ClusterRole rules are atomic',
    { kind: 'ClusterRole', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    { rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }] },
    { kind: 'ClusterRole', rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }] },
  ],
  [
    'ConfigMap data merges, null removes a key',
    { kind: 'ConfigMap', data: { a: '1', b: '2' } },
    { data: { b: null, c: '3' } },
    { data: { a: '1', c: '3' }, kind: 'ConfigMap' },
  ],
  [
    'null removes a member; nulls in a new value are dropped',
    { kind: 'Deployment', spec: { template: { spec: { hostNetwork: true, dnsPolicy: 'x' } } } },
    {
      spec: {
        template: { spec: { hostNetwork: null, affinity: { nodeAffinity: null, podAffinity: { x: null } } } },
      },
    },
    { kind: 'Deployment', spec: { template: { spec: { affinity: { podAffinity: {} }, dnsPolicy: 'x' } } } },
  ],
  [
    'a value of another JSON type replaces',
    { kind: 'Deployment', spec: { replicas: 2, selector: 'x' } },
    { spec: { replicas: { a: 1 }, selector: { matchLabels: {} } } },
    { kind: 'Deployment', spec: { replicas: { a: 1 }, selector: { matchLabels: {} } } },
  ],
  [
    'a new value loses its members and items that carry $patch',
    { kind: 'Deployment', spec: { template: { spec: {} } } },
    {
      spec: {
        template: {
          spec: { affinity: { a: { $patch: 'delete' }, b: [{ $patch: 'delete', k: 1 }, { k: 2 }] } },
        },
      },
    },
    { kind: 'Deployment', spec: { template: { spec: { affinity: { b: [{ k: 2 }] } } } } },
  ],
  [
    '$patch: delete removes the item with that merge key',
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } },
    { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } },
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'b' }] } } } },
  ],
  [
    '$patch: replace in a list replaces it with the other items',
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } },
    { spec: { template: { spec: { containers: [{ name: 'c' }, { $patch: 'replace' }] } } } },
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'c' }] } } } },
  ],
  [
    '$patch: replace in an object replaces it',
    { kind: 'Deployment', spec: { template: { spec: { securityContext: { runAsUser: 0, fsGroup: 1 } } } } },
    { spec: { template: { spec: { securityContext: { $patch: 'replace', runAsNonRoot: true } } } } },
    { kind: 'Deployment', spec: { template: { spec: { securityContext: { runAsNonRoot: true } } } } },
  ],
  [
    '$patch: delete in an object empties it',
    { kind: 'Deployment', spec: { template: { spec: { securityContext: { runAsUser: 0 } } } } },
    { spec: { template: { spec: { securityContext: { $patch: 'delete' } } } } },
    { kind: 'Deployment', spec: { template: { spec: { securityContext: {} } } } },
  ],
  [
    '$retainKeys clears the keys it does not list',
    { kind: 'Deployment', spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    { kind: 'Deployment', spec: { strategy: { type: 'Recreate' } } },
  ],
  [
    '$deleteFromPrimitiveList removes scalars',
    { kind: 'Deployment', metadata: { finalizers: ['a', 'b', 'c'] } },
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'c'] } },
    { kind: 'Deployment', metadata: { finalizers: ['b'] } },
  ],
  [
    '$setElementOrder orders a merged list of objects',
    {
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } } },
    },
    {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }],
            containers: [{ name: 'a', image: 'new' }],
          },
        },
      },
    },
    {
      kind: 'Deployment',
      spec: {
        template: { spec: { containers: [{ name: 'c' }, { image: 'new', name: 'a' }, { name: 'b' }] } },
      },
    },
  ],
  [
    '$setElementOrder orders a merged list of scalars',
    { kind: 'Deployment', metadata: { finalizers: ['a', 'b'] } },
    { metadata: { '$setElementOrder/finalizers': ['b', 'z', 'a'], finalizers: ['z'] } },
    { kind: 'Deployment', metadata: { finalizers: ['b', 'z', 'a'] } },
  ],
];

const REFUSED: [JsonObject & { kind: string }, JsonObject, string][] = [
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    { spec: { template: { spec: { containers: [{ image: 'x' }] } } } },
    'spec.template.spec.containers: an item has no merge key "name"',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: {} } } },
    { spec: { $patch: 'merge' } },
    'spec: unknown $patch "merge" in an object',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } },
    'spec.template.spec.containers: unknown $patch "merge" in a list',
  ],
  [
    { kind: 'Deployment', metadata: { finalizers: ['a'] } },
    { metadata: { finalizers: [1] } },
    'metadata.finalizers: the items of the list are not all of one type',
  ],
  [
    { kind: 'Deployment', spec: { strategy: { type: 'x' } } },
    { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
    'spec.strategy: rollingUpdate is set but not in $retainKeys',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    {
      spec: {
        template: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] } },
      },
    },
    "spec.template.spec.containers: the patch's order differs from $setElementOrder/containers",
  ],
];

describe('applyStrategicMerge', () => {
  it.each(APPLIED)('%s', (_name, doc, patch, expected) => {
    const before = structuredClone(doc);
    expect(applyStrategicMerge(doc, patch, doc.kind)).toEqual(expected);
    expect(doc).toEqual(before);
  });

  it.each(REFUSED)('refuses %j + %j: %s', (doc, patch, message) => {
    expect(() => applyStrategicMerge(doc, patch, doc.kind)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CUSTOMIZE', message }),
    );
  });

  it.each([
    [[], 'a strategic merge patch is a JSON object'],
    ['x', 'a strategic merge patch is a JSON object'],
  ])('refuses the patch %j', (patch, message) => {
    expect(() => applyStrategicMerge({}, patch, 'Deployment')).toThrow(expect.objectContaining({ message }));
  });

  it('refuses a kind it has no merge keys for, as apimachinery refuses unstructured objects', () => {
    expect(() => applyStrategicMerge({}, {}, 'VirtualMachine')).toThrow(
      expect.objectContaining({ message: 'strategic merge patches of a VirtualMachine are not supported' }),
    );
  });
});
