import { beforeEach, describe, expect, it } from '@jest/globals';
import { forbidden } from '../../kernel/kube/testing/recording-client.ts';
import { isSignedBy } from '../../kernel/x509/read.ts';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { installedKind } from '../apply/kinds.ts';
import { CA_BUNDLE_KEY, CONFIG_MAPS, LABELS, SECRETS, WEBHOOK_CONFIGURATIONS } from '../generate/names.ts';
import { kubevirt, NS, OperatorHarness } from './testing/harness.ts';

const HOUR = 3_600_000;
/** KubeVirt's default certificates live 24 h and are renewed when 20 % of that is left. */
const ROTATION_MS = 24 * HOUR * 0.8;

let h: OperatorHarness;
beforeEach(() => {
  h = new OperatorHarness();
});

/** The request bodies of what was written, by `resource name`. */
const bodies = (): Map<string, Record<string, unknown>> =>
  new Map(
    h.client.actions.map((a) => [
      `${a.resource} ${a.key.split('/')[1] ?? ''}`,
      a.body as Record<string, unknown>,
    ]),
  );
const written = (resource: string): string[] =>
  h.client.actions.filter((a) => a.resource === resource).map((a) => a.key.split('/')[1] ?? '');
const workloads = (): string[] => [...written('deployments'), ...written('daemonsets')];
const status = (): NonNullable<KubeVirt['status']> => {
  const patches = h.kubevirtClient.actions.filter((a) => a.subresource === 'status');
  expect(patches).toHaveLength(1);
  return (patches[0]?.body as KubeVirt).status ?? {};
};
const condition = (type: string): object | undefined => status().conditions?.find((c) => c.type === type);
const tls = (name: string): string =>
  Buffer.from(
    String((bodies().get(`secrets ${name}`)?.['data'] as Record<string, string>)['tls.crt']),
    'base64',
  ).toString();

/** Replaces the cached KubeVirt resource by one with this spec, its status kept, a generation later. */
function respec(spec: KubeVirt['spec']): void {
  const kv = h.kubevirt();
  h.caches.kubevirts.store.add({
    ...kubevirt(spec, { generation: 2 }),
    ...(kv?.status && { status: kv.status }),
  });
}

describe('syncInstall: a fresh install', () => {
  beforeEach(() => {
    h.caches.kubevirts.store.add(kubevirt());
  });

  it('issues the certificates and applies as stored in creation order, the api alone of the workloads', async () => {
    const result = await h.reconcile();
    expect(h.resourceRuns()).toEqual([
      'serviceaccounts',
      'clusterroles',
      'clusterrolebindings',
      'roles',
      'rolebindings',
      'secrets',
      'configmaps',
      'services',
      'poddisruptionbudgets',
      'deployments',
      'validatingwebhookconfigurations',
      'mutatingwebhookconfigurations',
    ]);
    expect(h.client.actions.every((a) => (a.options as { type: string }).type === 'apply')).toBe(true);
    expect(workloads()).toEqual(['virt-api']);
    expect(written('secrets').sort()).toEqual(Object.values(SECRETS).sort());
    expect(written('validatingwebhookconfigurations')).toEqual([
      WEBHOOK_CONFIGURATIONS.apiValidator,
      WEBHOOK_CONFIGURATIONS.operatorValidator,
    ]);
    const api = bodies().get('deployments virt-api') as { metadata: { labels: Record<string, string> } };
    expect(api.metadata.labels).toMatchObject({
      'kubevirt.internal.virtualization.deckhouse.io': 'virt-api',
    });
    expect(api.metadata.labels).not.toHaveProperty(LABELS.component);
    const ca = tls(SECRETS.ca);
    expect(isSignedBy(tls(SECRETS.api), ca)).toBe(true);
    const bundle = bodies().get(`configmaps ${CONFIG_MAPS.caBundle}`)?.['data'] as Record<string, string>;
    expect(bundle[CA_BUNDLE_KEY]).toContain(ca.trim());
    expect(h.kubevirtClient.log).toEqual([`patch kubevirts ${NS}/kubevirt status`]);
    expect(status()).toMatchObject({ phase: 'Deploying', targetKubeVirtVersion: 'v0.1.0' });
    expect(result?.requeueAfterMs).toBeLessThanOrEqual(5000);
  });

  it('holds the controller and the handler back until the api is rolled over', async () => {
    await h.reconcile();
    h.settle();
    await h.reconcile();
    expect(h.client.log).toEqual([]);
    h.rollOut('virt-api');
    const result = await h.reconcile();
    expect(h.client.log).toEqual([
      `patch deployments ${NS}/virt-controller`,
      `patch daemonsets ${NS}/virt-handler`,
    ]);
    expect(result?.requeueAfterMs).toBeLessThanOrEqual(5000);
  });

  it('once all is live and every component ready: nothing applied, Deployed, back at the next rotation', async () => {
    await h.reconcile();
    h.settle();
    h.rollOut();
    await h.reconcile();
    h.settle();
    h.rollOut();
    const result = await h.reconcile();
    expect(h.client.log).toEqual([]);
    expect(status()).toMatchObject({ phase: 'Deployed', observedKubeVirtVersion: 'v0.1.0' });
    expect(condition('Available')).toMatchObject({ status: 'True', reason: 'AllComponentsReady' });
    expect(result).toEqual({ requeueAfterMs: ROTATION_MS });
    h.settle();
    h.clock.advance(HOUR);
    expect(await h.reconcile()).toEqual({ requeueAfterMs: ROTATION_MS - HOUR });
    expect([...h.client.log, ...h.kubevirtClient.log]).toEqual([]);
  });
});

describe('syncInstall: an install in place', () => {
  beforeEach(async () => {
    h.caches.kubevirts.store.add(kubevirt());
    await h.converge();
  });

  it('applies again an object deleted by hand', async () => {
    h.caches.drop(installedKind('v1', 'ConfigMap'), NS, CONFIG_MAPS.caBundle);
    h.caches.drop(installedKind('apps/v1', 'Deployment'), NS, 'virt-controller');
    await h.reconcile();
    expect(h.client.log).toEqual([
      `patch configmaps ${NS}/${CONFIG_MAPS.caBundle}`,
      `patch deployments ${NS}/virt-controller`,
    ]);
  });

  it('applies again an object edited by hand', async () => {
    const role = h.caches.get('ClusterRole', 'kubevirt-internal-virtualization-controller');
    h.caches.put({ ...role, rules: [] } as typeof role);
    await h.reconcile();
    expect(h.client.log).toEqual(['patch clusterroles /kubevirt-internal-virtualization-controller']);
  });

  it('deletes a labelled object it no longer renders', async () => {
    const api = h.caches.get('Deployment', 'virt-api');
    h.caches.put({ ...api, metadata: { ...api.metadata, name: 'virt-old' } });
    await h.reconcile();
    expect(h.client.log).toEqual([`delete deployments ${NS}/virt-old`]);
  });

  it('rolls a higher version out handler first, then the controller, then the api', async () => {
    respec({ imageTag: 'v0.2.0' });
    const steps: string[][] = [];
    for (const next of ['virt-handler', 'virt-controller', 'virt-api']) {
      await h.reconcile();
      steps.push(workloads());
      h.settle();
      h.rollOut(next);
    }
    expect(steps).toEqual([['virt-handler'], ['virt-controller'], ['virt-api']]);
    await h.reconcile();
    expect(status()).toMatchObject({ phase: 'Deployed', observedKubeVirtVersion: 'v0.2.0' });
  });

  it('moves to a lower version api first, then the controller and the handler together', async () => {
    respec({ imageTag: 'v0.0.9' });
    await h.reconcile();
    expect(workloads()).toEqual(['virt-api']);
    expect(written('secrets')).toHaveLength(Object.keys(SECRETS).length);
    h.settle();
    h.rollOut('virt-api');
    await h.reconcile();
    expect(workloads()).toEqual(['virt-controller', 'virt-handler']);
  });

  it('a failed apply: the status says why and the reconcile throws, for the runner to retry', async () => {
    h.caches.drop(installedKind('v1', 'Service'), NS, 'virt-api');
    h.caches.drop(installedKind('apps/v1', 'Deployment'), NS, 'virt-api');
    h.client.failNext('patch', 'services', forbidden('services "virt-api" is forbidden'));
    await expect(h.reconcile()).rejects.toThrow('services "virt-api" is forbidden');
    expect(h.client.log).toEqual([`patch services ${NS}/virt-api`]);
    const message = 'An error occurred during deployment: services "virt-api" is forbidden';
    expect(condition('Synchronized')).toMatchObject({ status: 'False', reason: 'DeploymentFailed', message });
    expect(condition('Degraded')).toMatchObject({ status: 'True', reason: 'DeploymentFailed' });
  });
});

describe('syncInstall: a refused configuration', () => {
  it('writes the reason into the status and applies nothing', async () => {
    h.caches.kubevirts.store.add(kubevirt({ infra: { replicas: 0 } }));
    expect(await h.reconcile()).toBeUndefined();
    expect(h.client.log).toEqual([]);
    expect(condition('Synchronized')).toMatchObject({
      status: 'False',
      reason: 'DeploymentFailed',
      message: expect.stringContaining("spec.infra.replicas: infra replica count can't be 0") as unknown,
    });
    expect(status().phase).toBe('Deploying');
  });
});
