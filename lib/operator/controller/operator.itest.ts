/**
 * The operator's controller against a real kube-apiserver (testing/cluster.ts): installing from a KubeVirt
 * resource in the test namespace, every rendered object is server-side applied and read back as stored; the
 * test plays the Deployment and DaemonSet controllers by writing their /status. The install's cluster-scoped
 * objects have fixed names, so this file must be the only install on its control plane (integration files
 * run one at a time); its webhooks ignore failures and see this namespace only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorMessage, isNotFound } from '../../kernel/errors/errors.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { KUBEVIRTS, type KubeVirt } from '../../kubevirt/index.ts';
import { describe as describeObject } from '../apply/apply-set.ts';
import { covers } from '../apply/covers.ts';
import { installedKind } from '../apply/kinds.ts';
import { installConfigFrom } from '../config/from-kubevirt.ts';
import type { Rendered } from '../config/install-config.ts';
import { customize } from '../customize/customize.ts';
import { X509_ISSUER } from '../generate/certs/issuer.ts';
import { planCertificates } from '../generate/certs/plan.ts';
import { renderInstall } from '../generate/install.ts';
import { installSelector } from '../generate/meta.ts';
import { CA_BUNDLE_KEY, CONFIG_MAPS, OPERATOR_FIELD_MANAGER } from '../generate/names.ts';
import { kubevirtResource, storedForm } from '../generate/operator-install.ts';
import { installConfig } from '../testing/config.ts';
import { currentCertificates } from './current-certificates.ts';
import {
  harmlessWebhooks,
  labelledObjects,
  reconciles,
  reportReady,
  startOperatorEnv,
  type OperatorTestEnv,
} from './testing/cluster.ts';

type Workload = KubeObject & {
  spec: { template: { spec: { containers: { image: string }[] } } };
};
type ConfigMap = KubeObject & { data?: Record<string, string> };
interface Webhook {
  failurePolicy: string;
  namespaceSelector?: { matchLabels?: Record<string, string> };
}

let t: OperatorTestEnv;

beforeAll(async () => {
  t = await startOperatorEnv('operator');
  const spec = { customizeComponents: { patches: harmlessWebhooks(t.ns) } };
  await t.kv.create(KUBEVIRTS, kubevirtResource(t.ns, spec));
});
afterAll(async () => {
  await t.close();
});

const getKubeVirt = (): Promise<KubeVirt> => t.kv.get<KubeVirt>(KUBEVIRTS, 'kubevirt', { namespace: t.ns });
const configMaps = installedKind('v1', 'ConfigMap');

/** The live object, or undefined when it does not exist. */
async function live<T extends KubeObject>(
  o: Pick<Rendered, 'apiVersion' | 'kind' | 'metadata'>,
): Promise<T | undefined> {
  const gvr = installedKind(o.apiVersion, o.kind);
  const opts = o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace };
  return t.direct.get<T>(gvr, o.metadata.name ?? '', opts).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}
const workload = (kind: 'Deployment' | 'DaemonSet', name: string): Promise<Workload | undefined> =>
  live<Workload>({ apiVersion: 'apps/v1', kind, metadata: { name, namespace: t.ns } });
const imageOf = async (kind: 'Deployment' | 'DaemonSet', name: string): Promise<string | undefined> =>
  (await workload(kind, name))?.spec.template.spec.containers[0]?.image;
const imageTagged = (kind: 'Deployment' | 'DaemonSet', name: string, tag: string): Promise<true> =>
  waitFor(async () => (await imageOf(kind, name))?.endsWith(`:${tag}`), `${name} at ${tag}`);

/** Waits for the KubeVirt resource's status to satisfy `ok`. */
function kubevirtWhere(what: string, ok: (kv: KubeVirt) => boolean): Promise<KubeVirt> {
  return waitFor(async () => {
    const kv = await getKubeVirt();
    return ok(kv) && kv;
  }, `KubeVirt ${what}`);
}
const condition = (kv: KubeVirt, type: string): string | undefined =>
  kv.status?.conditions?.find((c) => c.type === type)?.status;

/** The whole install set as the operator renders it now, as stored, from the certificates it holds. */
async function expectedInstall(): Promise<Rendered[]> {
  const cfg = installConfigFrom(await getKubeVirt(), t.env);
  const secrets = await t.direct.list(installedKind('v1', 'Secret'), { namespace: t.ns });
  const maps = await t.direct.list(configMaps, { namespace: t.ns });
  const byName = (items: KubeObject[]) => (name: string) => items.find((o) => o.metadata.name === name);
  const current = currentCertificates(byName(secrets.items), byName(maps.items));
  const plan = planCertificates({ cfg, current, now: new Date(), issuer: X509_ISSUER });
  expect(plan.changes).toEqual([]);
  return customize(renderInstall(cfg, plan), cfg).map(storedForm);
}

/** The objects of the install set that are missing or differ from what the operator would apply. */
async function notAsRendered(): Promise<string[]> {
  const out: string[] = [];
  for (const o of await expectedInstall()) if (!covers(await live(o), o)) out.push(describeObject(o));
  return out;
}

/** Every distinct failurePolicy and namespace selected among the installed webhooks. */
async function webhookPolicies(): Promise<string[]> {
  const seen = new Set<string>();
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    const list = await t.direct.list<KubeObject & { webhooks: Webhook[] }>(
      installedKind('admissionregistration.k8s.io/v1', kind),
      { labelSelector: installSelector() },
    );
    for (const w of list.items.flatMap((c) => c.webhooks))
      seen.add(
        `${w.failurePolicy} ${w.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ?? '*'}`,
      );
  }
  return [...seen];
}

/** Makes the change, then waits until the operator has finished `n` more reconciles than before it. */
async function reconciledAfter(
  n: number,
  change: () => Promise<unknown> = () => Promise.resolve(),
): Promise<void> {
  const target = (await reconciles(t.registry)) + n;
  await change();
  await waitFor(async () => (await reconciles(t.registry)) >= target, `${String(n)} more reconciles`);
}

async function allReady(): Promise<void> {
  await reportReady(t, 'Deployment', 'virt-api');
  await reportReady(t, 'Deployment', 'virt-controller');
  await reportReady(t, 'DaemonSet', 'virt-handler');
}

describe('the operator against kube-apiserver', () => {
  it("the upstream topology's install set, APIServices included, passes the API server's review (dry run)", async () => {
    const cfg = installConfig({ namespace: t.ns, mode: 'kubevirt' });
    const plan = planCertificates({ cfg, current: {}, now: new Date(), issuer: X509_ISSUER });
    const objects = renderInstall(cfg, plan).map(storedForm);
    expect(objects.filter((o) => o.kind === 'APIService')).toHaveLength(2);
    const refused: string[] = [];
    for (const o of objects) {
      const { name = '', namespace } = o.metadata;
      await t.direct
        .patch(installedKind(o.apiVersion, o.kind), name, o, {
          type: 'apply',
          force: true,
          fieldManager: OPERATOR_FIELD_MANAGER,
          dryRun: true,
          ...(namespace !== undefined && { namespace }),
        })
        .catch((err: unknown) => refused.push(`${describeObject(o)}: ${errorMessage(err)}`));
    }
    expect(refused).toEqual([]);
  });

  it('installs the api first, holding the controller and the handler back, and reports Deploying', async () => {
    await waitFor(() => workload('Deployment', 'virt-api'), 'the virt-api Deployment');
    await kubevirtWhere('Deploying', (kv) => kv.status?.phase === 'Deploying');
    await reconciledAfter(2);
    expect(await workload('Deployment', 'virt-controller')).toBeUndefined();
    expect(await workload('DaemonSet', 'virt-handler')).toBeUndefined();
    expect((await getKubeVirt()).metadata.finalizers).toEqual(['foregroundDeleteKubeVirt']);
  });

  it('every rendered object is accepted and stored as rendered once the api is ready; then Deployed', async () => {
    await reportReady(t, 'Deployment', 'virt-api');
    await waitFor(() => workload('DaemonSet', 'virt-handler'), 'the virt-handler DaemonSet');
    await waitFor(() => workload('Deployment', 'virt-controller'), 'the virt-controller Deployment');
    expect(await notAsRendered()).toEqual([]);
    expect(await webhookPolicies()).toEqual([`Ignore ${t.ns}`]);
    const api = await workload('Deployment', 'virt-api');
    expect(api?.metadata.labels).toMatchObject({
      'kubevirt.internal.virtualization.deckhouse.io': 'virt-api',
    });
    await allReady();
    const kv = await kubevirtWhere('Deployed', (k) => k.status?.phase === 'Deployed');
    expect(condition(kv, 'Available')).toBe('True');
    expect(kv.status?.observedKubeVirtVersion).toBe('v0.1.0');
  });

  it('settled, a reconcile applies nothing', async () => {
    t.applied.length = 0;
    const touch = { metadata: { annotations: { 'example.com/touch': '1' } } };
    await reconciledAfter(1, () =>
      t.kv.patch(KUBEVIRTS, 'kubevirt', touch, { type: 'merge', namespace: t.ns }),
    );
    expect(t.applied).toEqual([]);
  });

  it('a Deployment deleted by hand comes back', async () => {
    const before = await workload('Deployment', 'virt-controller');
    await t.direct.delete(installedKind('apps/v1', 'Deployment'), 'virt-controller', { namespace: t.ns });
    const after = await waitFor(async () => {
      const w = await workload('Deployment', 'virt-controller');
      return w !== undefined && w.metadata.uid !== before?.metadata.uid && w;
    }, 'virt-controller created again');
    expect(after.metadata.labels).toEqual(before?.metadata.labels);
    await reportReady(t, 'Deployment', 'virt-controller');
  });

  it('a ConfigMap edited by hand is restored', async () => {
    const name = CONFIG_MAPS.caBundle;
    const before = await live<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: t.ns },
    });
    await t.direct.patch(
      configMaps,
      name,
      { data: { [CA_BUNDLE_KEY]: 'edited' } },
      { type: 'merge', namespace: t.ns },
    );
    await waitFor(async () => {
      const cm = await t.direct.get<ConfigMap>(configMaps, name, { namespace: t.ns });
      return cm.data?.[CA_BUNDLE_KEY] === before?.data?.[CA_BUNDLE_KEY];
    }, 'the CA bundle restored');
  });

  it('a lower spec.imageTag rolls the api first, the controller and the handler once the api is ready', async () => {
    const kv = await getKubeVirt();
    await t.kv.patch(
      KUBEVIRTS,
      'kubevirt',
      { spec: { imageTag: 'v0.0.9' } },
      { type: 'merge', namespace: t.ns },
    );
    await imageTagged('Deployment', 'virt-api', 'v0.0.9');
    await reconciledAfter(2);
    expect(await imageOf('Deployment', 'virt-controller')).toBe('registry.example/kubevirt-ts:v0.1.0');
    expect(await imageOf('DaemonSet', 'virt-handler')).toBe('registry.example/kubevirt-ts:v0.1.0');
    await reportReady(t, 'Deployment', 'virt-api');
    await imageTagged('Deployment', 'virt-controller', 'v0.0.9');
    await imageTagged('DaemonSet', 'virt-handler', 'v0.0.9');
    await allReady();
    const done = await kubevirtWhere(
      'Deployed at v0.0.9',
      (k) => k.status?.observedKubeVirtVersion === 'v0.0.9',
    );
    expect(done.status?.phase).toBe('Deployed');
    expect(done.status?.observedGeneration).toBe((kv.metadata.generation ?? 0) + 1);
    expect(await notAsRendered()).toEqual([]);
  });

  it('deleting the KubeVirt resource removes every labelled object, then the resource', async () => {
    await t.kv.delete(KUBEVIRTS, 'kubevirt', { namespace: t.ns });
    await waitFor(
      async () =>
        getKubeVirt().then(
          () => false,
          (err: unknown) => isNotFound(err),
        ),
      'the KubeVirt resource gone',
      { timeoutMs: 60_000 },
    );
    const left = await labelledObjects(t.direct, t.ns);
    expect(left.map(({ gvr, obj }) => describeObject({ ...obj, kind: gvr.kind }))).toEqual([]);
  });

  it('no reconcile failed on the way', () => {
    expect(t.lines.filter((l) => l['msg'] === 'reconcile failed, requeuing')).toEqual([]);
  });
});
