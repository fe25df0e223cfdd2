/**
 * Integration-test support for the operator's controller: the test cluster (testenv/cluster.ts), a client
 * speaking kubevirt.io through the rename rules, a direct client that records the server-side applies it
 * carries, runOperatorController running on the test namespace, and what the test does in place of what is not
 * there: the workload controllers' status, and webhooks made harmless (failurePolicy Ignore, this namespace
 * only) by customizeComponents. Closing stops the operator and deletes the install's cluster-scoped objects,
 * which have fixed names, whatever state the test left them in.
 */
import { Registry } from 'prom-client';
import { testCluster, type TestCluster } from '../../../../testenv/cluster.ts';
import { realClock } from '../../../kernel/clock.ts';
import { isNotFound } from '../../../kernel/errors/errors.ts';
import { HttpKubeClient, type KubeClient } from '../../../kernel/kube/index.ts';
import type { GroupVersionResource, KubeObject, PatchOptions } from '../../../kernel/kube/types.ts';
import { memoryLogger } from '../../../kernel/log/log.ts';
import { KUBEVIRTS, type KubeVirt } from '../../../kubevirt/index.ts';
import { rewritingClient } from '../../../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../../rename/index.ts';
import { INSTALLED_KINDS, installedKind } from '../../apply/kinds.ts';
import type { OperatorEnv } from '../../config/from-kubevirt.ts';
import type { Rendered } from '../../config/install-config.ts';
import { X509_ISSUER } from '../../generate/certs/issuer.ts';
import { planCertificates } from '../../generate/certs/plan.ts';
import { renderInstall } from '../../generate/install.ts';
import { installSelector } from '../../generate/meta.ts';
import { storedForm } from '../../generate/operator-install.ts';
import { apiWebhookConfigurations, operatorWebhookConfiguration } from '../../generate/webhooks/admission.ts';
import { installConfig } from '../../testing/config.ts';
import { runOperatorController } from '../start.ts';

/** The direct client, recording `resource name` of every server-side apply. */
class ApplyRecordingClient extends HttpKubeClient {
  readonly applied: string[] = [];
  override patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    body: unknown,
    opts: PatchOptions,
  ): Promise<T> {
    if (opts.type === 'apply') this.applied.push(`${gvr.resource} ${name}`);
    return super.patch<T>(gvr, name, body, opts);
  }
}

export interface OperatorTestEnv extends TestCluster {
  /** Speaks kubevirt.io. */
  readonly kv: KubeClient;
  /** What the operator applied (`resource name`), in order; the test may empty it. */
  readonly applied: string[];
  readonly env: OperatorEnv;
  readonly registry: Registry;
  /** The operator's log lines. */
  readonly lines: Record<string, unknown>[];
}

/** `customizeComponents.patches` turning every generated webhook to Ignore, for objects of `ns` only. */
export function harmlessWebhooks(
  ns: string,
): NonNullable<NonNullable<KubeVirt['spec']['customizeComponents']>['patches']> {
  const cfg = installConfig({ namespace: ns });
  const configurations = [...apiWebhookConfigurations(cfg, 'x'), operatorWebhookConfiguration(cfg, 'x')];
  return configurations.map((c) => ({
    resourceType: c.kind,
    resourceName: c.metadata.name ?? '',
    type: 'json',
    patch: JSON.stringify(
      c.webhooks.flatMap((_, i) => [
        { op: 'replace', path: `/webhooks/${String(i)}/failurePolicy`, value: 'Ignore' },
        {
          op: 'add',
          path: `/webhooks/${String(i)}/namespaceSelector`,
          value: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
        },
      ]),
    ),
  }));
}

/** The cluster-scoped objects an install into `ns` makes, as stored (their names do not depend on `ns`). */
function clusterScoped(env: OperatorEnv): Rendered[] {
  const cfg = installConfig({ namespace: env.namespace, mode: env.mode });
  const plan = planCertificates({ cfg, current: {}, now: new Date(), issuer: X509_ISSUER });
  return renderInstall(cfg, plan)
    .map(storedForm)
    .filter((o) => o.metadata.namespace === undefined);
}

/** Every object carrying the install label: of the namespaced kinds in `ns`, of the others all. */
export async function labelledObjects(
  client: KubeClient,
  ns: string,
): Promise<{ gvr: GroupVersionResource; obj: KubeObject }[]> {
  const found: { gvr: GroupVersionResource; obj: KubeObject }[] = [];
  for (const gvr of INSTALLED_KINDS) {
    const list = await client.list(gvr, {
      labelSelector: installSelector(),
      ...(gvr.namespaced && { namespace: ns }),
    });
    found.push(...list.items.map((obj) => ({ gvr, obj })));
  }
  return found;
}

async function removeQuietly(run: () => Promise<unknown>): Promise<void> {
  await run().catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

export async function startOperatorEnv(prefix: string): Promise<OperatorTestEnv> {
  const c = await testCluster(prefix, { userAgent: 'kubevirt-ts/operator-itest' });
  const direct = new ApplyRecordingClient(c.config, { keepAliveTimeout: 10 });
  const kv = rewritingClient(c.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  const env: OperatorEnv = {
    namespace: c.ns,
    image: 'registry.example/kubevirt-ts:v0.1.0',
    mode: 'deckhouse',
  };
  const registry = new Registry();
  const { log, lines } = memoryLogger('virt-operator', 2);
  const stop = new AbortController();
  const running = runOperatorController(
    {
      kubevirtClient: kv,
      client: direct,
      env,
      operatorVersion: 'v0.9.0',
      issuer: X509_ISSUER,
      clock: realClock,
      log,
      registry,
    },
    stop.signal,
  );
  c.onClose(async () => {
    stop.abort();
    await running;
    await direct.destroy();
    const patch = { metadata: { finalizers: [] } };
    await removeQuietly(() => kv.patch(KUBEVIRTS, 'kubevirt', patch, { type: 'merge', namespace: c.ns }));
    for (const o of clusterScoped(env))
      await removeQuietly(() => c.direct.delete(installedKind(o.apiVersion, o.kind), o.metadata.name ?? ''));
    const left = (await labelledObjects(c.direct, c.ns)).filter(({ gvr }) => !gvr.namespaced);
    if (left.length > 0)
      throw new Error(
        `cluster-scoped objects left: ${left.map((o) => o.obj.metadata.name ?? '').join(', ')}`,
      );
  });
  return Object.assign(c, { kv, applied: direct.applied, env, registry, lines });
}

/** Reconciles the operator has finished so far. */
export async function reconciles(registry: Registry): Promise<number> {
  const m = await registry.getSingleMetric('kubevirt_controller_reconcile_total')?.get();
  return (m?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

type Workload = KubeObject & { spec?: { replicas?: number } };

/** What the Deployment or DaemonSet controller would write once every Pod of the latest spec is ready. */
export async function reportReady(
  c: TestCluster,
  kind: 'Deployment' | 'DaemonSet',
  name: string,
): Promise<void> {
  const gvr = installedKind('apps/v1', kind);
  const w = await c.direct.get<Workload>(gvr, name, { namespace: c.ns });
  const observedGeneration = w.metadata.generation ?? 1;
  const n = w.spec?.replicas ?? 1;
  const status =
    kind === 'DaemonSet'
      ? {
          observedGeneration,
          desiredNumberScheduled: 1,
          currentNumberScheduled: 1,
          updatedNumberScheduled: 1,
          numberReady: 1,
          numberAvailable: 1,
          numberMisscheduled: 0,
        }
      : { observedGeneration, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n };
  await c.direct.patch(gvr, name, { status }, { type: 'merge', subresource: 'status', namespace: c.ns });
}
