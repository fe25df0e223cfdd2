import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../../kernel/errors/errors.ts';
import { goldens } from '../../../kernel/testing/golden.ts';
import { WEBHOOKS, type Webhook } from '../../../kubevirt/webhooks.ts';
import type { InstallMode } from '../../config/install-config.ts';
import { installConfig } from '../../testing/config.ts';
import { PORTS } from '../layout.ts';
import { SERVICES } from '../names.ts';
import {
  apiWebhookConfigurations,
  operatorWebhookConfiguration,
  type WebhookConfiguration,
} from './admission.ts';
import { apiServices } from './api-services.ts';

const golden = goldens(import.meta.url);
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfakeCA\n-----END CERTIFICATE-----\n';
const cfg = installConfig({ namespace: 'kubevirt-ts' });

const configurations = (): WebhookConfiguration[] => [
  ...apiWebhookConfigurations(cfg, PEM),
  operatorWebhookConfiguration(cfg, PEM),
];
const admission = (c: WebhookConfiguration): string =>
  c.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating';
const rendered = configurations().flatMap((c) =>
  c.webhooks.map((w) => ({ ...w, admission: admission(c), configuration: c.metadata.name })),
);
const registered = Object.values<Webhook>(WEBHOOKS).filter((w) => w.registered);

describe('goldens', () => {
  it.each<[InstallMode, string]>([
    ['deckhouse', 'd8-virtualization'],
    ['kubevirt', 'kubevirt'],
  ])('%s', (mode, namespace) => {
    const c = installConfig({ mode, namespace });
    golden.expectJson(`${mode}.json`, [
      ...apiWebhookConfigurations(c, PEM),
      operatorWebhookConfiguration(c, PEM),
      ...apiServices(c, PEM),
    ]);
  });
});

describe('webhook configurations', () => {
  it('register each registered webhook of the table once, and nothing else', () => {
    expect(rendered.map((w) => w.name).sort()).toEqual(registered.map((w) => w.name).sort());
  });

  it.each(registered.filter((w) => w.resource.group !== ''))(
    '$name: its path, operations and stored resource',
    (w) => {
      const found = rendered.filter((r) => r.name === w.name);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        admission: w.admission,
        clientConfig: { service: { path: w.path } },
        rules: [
          {
            operations: w.operations,
            apiGroups: ['internal.virtualization.deckhouse.io'],
            apiVersions: ['v1'],
            resources: [`internalvirtualization${w.resource.resource}`],
          },
        ],
      });
    },
  );

  it.each(['virt-launcher-eviction-interceptor.kubevirt.io', 'hotplug-pod-eviction-interceptor.kubevirt.io'])(
    '%s: pods/eviction, any operation, its Pods’ names only, side effects but on a dry run',
    (name) => {
      const w = rendered.find((r) => r.name === name);
      const prefix = name.startsWith('virt-launcher') ? 'virt-launcher' : 'hp-volume-';
      expect(w).toMatchObject({
        admission: 'validating',
        clientConfig: { service: { path: '/pod-eviction-validate' } },
        rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] }],
        sideEffects: 'NoneOnDryRun',
      });
      expect(w?.matchConditions).toHaveLength(1);
      expect(w?.matchConditions?.[0]?.expression).toBe(`object.metadata.name.startsWith("${prefix}")`);
    },
  );

  it.each(rendered)(
    '$name: the KubeVirt CR reviews go to the operator, others to the api Pod’s proxy',
    (w) => {
      const toOperator = w.clientConfig.service.path.startsWith('/kubevirt-validate-');
      const role = toOperator
        ? 'operator-validator'
        : w.admission === 'mutating'
          ? 'api-mutator'
          : 'api-validator';
      expect(w.configuration).toBe(`virt-internal-virtualization-${role}`);
      expect(w.clientConfig.service).toEqual({
        namespace: 'kubevirt-ts',
        name: toOperator ? 'kubevirt-operator-webhook' : 'virt-api',
        path: w.clientConfig.service.path,
        port: toOperator ? 443 : 24192,
      });
    },
  );

  it('call only Services and ports the install has', () => {
    const services: readonly string[] = Object.values(SERVICES);
    const ports: readonly number[] = Object.values(PORTS);
    const refs = [
      ...rendered.map((w) => w.clientConfig.service),
      ...apiServices(installConfig({ mode: 'kubevirt' }), PEM).map((a) => a.spec.service),
    ];
    expect(refs.filter((s) => !services.includes(s.name) || !ports.includes(s.port))).toEqual([]);
  });

  it('trust the CA bundle given, base64-encoded, and are cluster-scoped', () => {
    for (const c of configurations()) {
      expect(c.metadata.namespace).toBeUndefined();
      for (const w of c.webhooks) expect(Buffer.from(w.clientConfig.caBundle, 'base64').toString()).toBe(PEM);
    }
  });

  it('refuse an empty CA bundle', () => {
    expect(() => apiWebhookConfigurations(cfg, ' \n')).toThrow(KvError);
    expect(() => operatorWebhookConfiguration(cfg, '')).toThrow(/CA bundle .* is empty/);
  });
});

describe('APIServices', () => {
  it('are none in deckhouse mode', () => {
    expect(apiServices(installConfig({ mode: 'deckhouse' }), PEM)).toEqual([]);
  });

  it('are v1 and v1alpha3 of subresources.kubevirt.io at the virt-api Service in kubevirt mode', () => {
    const services = apiServices(installConfig({ mode: 'kubevirt', namespace: 'kubevirt' }), PEM);
    expect(
      services.map((s) => [s.metadata.name, s.metadata.namespace, s.spec.group, s.spec.version]),
    ).toEqual([
      ['v1.subresources.kubevirt.io', undefined, 'subresources.kubevirt.io', 'v1'],
      ['v1alpha3.subresources.kubevirt.io', undefined, 'subresources.kubevirt.io', 'v1alpha3'],
    ]);
    for (const s of services) {
      expect(s.spec.service).toEqual({ namespace: 'kubevirt', name: 'virt-api', port: 443 });
      expect(Buffer.from(s.spec.caBundle, 'base64').toString()).toBe(PEM);
    }
  });
});
