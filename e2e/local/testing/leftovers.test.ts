import { describe, expect, it } from '@jest/globals';
import { newNamespaceName } from '../../../testenv/handle.ts';
import { WEBHOOK_CONFIGURATIONS } from '../../../lib/operator/generate/names.ts';
import { VIRT_NAMESPACE } from '../virt-install.ts';
import { STORAGE_CLASS } from '../storage.ts';
import { APISERVICE } from '../virt-registration.ts';
import {
  describeObjects,
  isTestNamespaceName,
  isTestObject,
  leftovers,
  type ClusterObject,
} from './leftovers.ts';

const ns = newNamespaceName('api');

/** What a cluster brought up by `up` and installed by `./dev run` holds of its own. */
const CLUSTER_OWN: ClusterObject[] = [
  ...['default', 'kube-system', 'kube-public', 'kube-node-lease', VIRT_NAMESPACE].map((name) => ({
    kind: 'Namespace',
    name,
  })),
  { kind: 'Node', name: 'local' },
  { kind: 'StorageClass', name: STORAGE_CLASS },
  { kind: 'PersistentVolume', name: 'local-pv-0a1b2c3d' },
  {
    kind: 'CustomResourceDefinition',
    name: 'internalvirtualizationvirtualmachines.internal.virtualization.deckhouse.io',
  },
  { kind: 'ValidatingWebhookConfiguration', name: WEBHOOK_CONFIGURATIONS.apiValidator },
  { kind: 'MutatingWebhookConfiguration', name: WEBHOOK_CONFIGURATIONS.apiMutator },
  { kind: 'ClusterRole', name: 'system:node' },
  { kind: 'ClusterRoleBinding', name: 'cluster-admin' },
  { kind: 'PriorityClass', name: 'system-node-critical' },
  { kind: 'APIService', name: APISERVICE, serviceNamespace: VIRT_NAMESPACE },
  { kind: 'APIService', name: 'v1.apps' },
];

describe('isTestNamespaceName', () => {
  it.each(['api', 'hpsafe', 'handler-paths', 'e2e-kubevirt-cr', 'local-node', 'bench-e2e', ''])(
    'takes what newNamespaceName(%j) gives, and its suffixed names',
    (prefix) => {
      const name = newNamespaceName(prefix);
      expect([name, `${name}-b`, `${name}-victim`].map(isTestNamespaceName)).toEqual([true, true, true]);
    },
  );

  it.each([
    'default',
    'kube-system',
    'kube-node-lease',
    VIRT_NAMESPACE,
    'api',
    'api-0a1b2c3',
    'api-0A1B2C3D',
  ])('leaves %j alone', (name) => {
    expect(isTestNamespaceName(name)).toBe(false);
  });
});

describe('isTestObject', () => {
  it('finds none among the cluster’s own objects', () => {
    expect(CLUSTER_OWN.filter(isTestObject)).toEqual([]);
  });

  it.each<[string, ClusterObject]>([
    ['a test namespace', { kind: 'Namespace', name: ns }],
    [
      'the api stack’s validating webhooks',
      { kind: 'ValidatingWebhookConfiguration', name: `kvts-api-test-${ns}` },
    ],
    [
      'the api stack’s mutating webhooks',
      { kind: 'MutatingWebhookConfiguration', name: `kvts-api-test-${ns}` },
    ],
    ['a test’s own volume', { kind: 'PersistentVolume', name: 'kvts-own-0a1b2c3d' }],
    ['a ClusterRole', { kind: 'ClusterRole', name: 'kvts-reader' }],
    [
      'the APIService sending to a test namespace',
      { kind: 'APIService', name: APISERVICE, serviceNamespace: ns },
    ],
  ])('finds %s', (_what, o) => {
    expect(isTestObject(o)).toBe(true);
  });

  it('does not take a test-shaped name of another kind for a namespace', () => {
    expect(isTestObject({ kind: 'PersistentVolume', name: ns })).toBe(false);
  });
});

describe('leftovers', () => {
  const hooks: ClusterObject = { kind: 'ValidatingWebhookConfiguration', name: `kvts-api-test-${ns}` };
  const old: ClusterObject = { kind: 'Namespace', name: newNamespaceName('hpsafe') };

  it('is empty when the file removed what it made', () => {
    expect(leftovers([...CLUSTER_OWN, old], [...CLUSTER_OWN, old]).own).toEqual([]);
  });

  it('tells the file’s own from what was there when it began', () => {
    const after = [...CLUSTER_OWN, old, hooks, { kind: 'Namespace', name: ns }];
    expect(leftovers([...CLUSTER_OWN, old], after)).toEqual({
      own: [hooks, { kind: 'Namespace', name: ns }],
      earlier: [old],
    });
  });

  it('takes the APIService registered anew for this file’s namespace for the file’s own', () => {
    const registered = (at: string): ClusterObject => ({
      kind: 'APIService',
      name: APISERVICE,
      serviceNamespace: at,
    });
    expect(leftovers([registered(old.name)], [registered(ns)])).toEqual({
      own: [registered(ns)],
      earlier: [],
    });
  });

  it('keys by kind and name: the same name of another kind is new', () => {
    const mutating = { ...hooks, kind: 'MutatingWebhookConfiguration' };
    expect(leftovers([hooks], [hooks, mutating]).own).toEqual([mutating]);
  });
});

describe('describeObjects', () => {
  it('gives one sorted line per object', () => {
    expect(
      describeObjects([
        { kind: 'PersistentVolume', name: 'kvts-own-1' },
        { kind: 'MutatingWebhookConfiguration', name: 'kvts-api-test-x' },
        { kind: 'APIService', name: APISERVICE, serviceNamespace: 'api-0a1b2c3d' },
      ]),
    ).toBe(
      `APIService ${APISERVICE} (Service in api-0a1b2c3d)\n` +
        'MutatingWebhookConfiguration kvts-api-test-x\nPersistentVolume kvts-own-1',
    );
  });
});
