/**
 * The operator's reconciler over fake caches and two recording clients, for unit tests. `settle()` plays the
 * API server (what was applied lands in the caches as stored, with a uid and a new generation; what was deleted
 * leaves; the KubeVirt resource takes the status and finalizers patched, and goes once a deleted one has no
 * finalizer left) and clears both clients' logs; `rollOut()` plays the workload controllers (a Deployment or
 * DaemonSet reports every Pod of its latest spec ready).
 */
import { FakeClock } from '../../../kernel/clock.ts';
import type { ReconcileResult } from '../../../kernel/controller/runner.ts';
import type { KubeObject } from '../../../kernel/kube/types.ts';
import { RecordingClient, type Action } from '../../../kernel/kube/testing/recording-client.ts';
import { nopLogger } from '../../../kernel/log/log.ts';
import type { KubeVirt } from '../../../kubevirt/index.ts';
import type { OperatorEnv } from '../../config/from-kubevirt.ts';
import { INSTALLED_KINDS } from '../../apply/kinds.ts';
import { X509_ISSUER } from '../../generate/certs/issuer.ts';
import { kubevirtResource } from '../../generate/operator-install.ts';
import { operatorReconciler } from '../controller.ts';
import { statusWriter } from '../status-writer.ts';
import { KUBEVIRT_FINALIZER } from '../uninstall.ts';
import { FakeCaches } from './fake-caches.ts';

export const NS = 'd8-virtualization';
export const KEY = `${NS}/kubevirt`;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const OPERATOR_VERSION = 'v0.9.0';
/** The operator's image: it installs v0.1.0 unless spec.imageTag says otherwise. */
const ENV: OperatorEnv = {
  namespace: NS,
  image: 'registry.example/kubevirt-ts:v0.1.0',
  mode: 'deckhouse',
};
/** Nodes the handler's DaemonSet runs on once rolled out. */
const NODES = 2;

/** The KubeVirt resource `kubevirt` of NS, with the finalizer, as read from the cache. */
export function kubevirt(spec: KubeVirt['spec'] = {}, meta: Partial<KubeVirt['metadata']> = {}): KubeVirt {
  const kv = kubevirtResource(NS, spec);
  return {
    ...kv,
    metadata: {
      ...kv.metadata,
      uid: 'kv-uid-1',
      resourceVersion: '1',
      generation: 1,
      creationTimestamp: '2026-03-01T00:00:00Z',
      finalizers: [KUBEVIRT_FINALIZER],
      ...meta,
    },
  };
}

type WithStatus = KubeObject & { status?: unknown };
type Workload = KubeObject & { spec?: { replicas?: number } };

function readyStatus(w: Workload, daemon: boolean): Record<string, number> {
  const generation = w.metadata.generation ?? 0;
  if (daemon) {
    const counts = [
      'desiredNumberScheduled',
      'currentNumberScheduled',
      'updatedNumberScheduled',
      'numberReady',
    ];
    return { observedGeneration: generation, numberAvailable: NODES, ...fill(counts, NODES) };
  }
  const n = w.spec?.replicas ?? 1;
  const counts = ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'];
  return { observedGeneration: generation, ...fill(counts, n) };
}

const fill = (keys: readonly string[], n: number): Record<string, number> =>
  Object.fromEntries(keys.map((k) => [k, n]));

export class OperatorHarness {
  readonly caches = new FakeCaches();
  /** Speaks the stored names: what the operator installs. */
  readonly client = new RecordingClient();
  /** Speaks kubevirt.io: the KubeVirt resource's finalizer and status. */
  readonly kubevirtClient = new RecordingClient();
  readonly clock = new FakeClock(T0);
  private seq = 100;

  reconcile(key = KEY): Promise<ReconcileResult> {
    return operatorReconciler({
      caches: this.caches,
      client: this.client,
      kubevirtClient: this.kubevirtClient,
      status: statusWriter(this.kubevirtClient, this.clock),
      env: ENV,
      operatorVersion: OPERATOR_VERSION,
      issuer: X509_ISSUER,
      clock: this.clock,
      log: nopLogger,
    })(key, { log: nopLogger, reconcileID: 'test' });
  }

  /** The resources written since the last settle, in order, each run of one resource as one entry. */
  resourceRuns(): string[] {
    return this.client.actions.map((a) => a.resource).filter((r, i, all) => i === 0 || all[i - 1] !== r);
  }

  /** The KubeVirt resource as cached now. */
  kubevirt(key = KEY): KubeVirt | undefined {
    return this.caches.kubevirts.store.get(key);
  }

  /** Plays the API server for every write recorded since the last settle, then forgets them. */
  settle(): void {
    for (const a of this.client.actions) this.storeInstalled(a);
    for (const a of this.kubevirtClient.actions) this.storeKubeVirt(a);
    this.client.actions.length = 0;
    this.kubevirtClient.actions.length = 0;
  }

  /** Reconciles, settles and rolls every workload out until a reconcile writes nothing. */
  async converge(): Promise<void> {
    for (let pass = 0; pass < 10; pass++) {
      await this.reconcile();
      const wrote = this.client.actions.length + this.kubevirtClient.actions.length > 0;
      this.settle();
      this.rollOut();
      if (!wrote) return;
    }
    throw new Error('the install does not settle');
  }

  /** The named workloads (all by default) report every Pod of their latest spec ready. */
  rollOut(...names: string[]): void {
    for (const { gvr, obj } of this.caches.installedObjects()) {
      if (gvr.kind !== 'Deployment' && gvr.kind !== 'DaemonSet') continue;
      if (names.length > 0 && !names.includes(obj.metadata.name ?? '')) continue;
      const ready: WithStatus = { ...obj, status: readyStatus(obj, gvr.kind === 'DaemonSet') };
      this.caches.put(ready);
    }
  }

  private nextVersion(): string {
    return String(++this.seq);
  }

  private storeInstalled(a: Action): void {
    const gvr = INSTALLED_KINDS.find((g) => g.resource === a.resource);
    if (gvr === undefined) throw new Error(`the operator wrote ${a.resource}, which it does not install`);
    const [ns = '', name = ''] = a.key.split('/');
    const namespace = ns === '' ? undefined : ns;
    if (a.verb === 'delete') {
      this.caches.drop(gvr, namespace, name);
      return;
    }
    const body = structuredClone(a.body) as WithStatus;
    const old: WithStatus | undefined = this.caches.live(gvr, namespace, name);
    const stored: WithStatus = {
      ...body,
      metadata: {
        ...body.metadata,
        uid: old?.metadata.uid ?? `uid-${this.nextVersion()}`,
        resourceVersion: this.nextVersion(),
        generation: (old?.metadata.generation ?? 0) + 1,
      },
      ...(old?.status !== undefined && { status: old.status }),
    };
    this.caches.put(stored);
  }

  private storeKubeVirt(a: Action): void {
    const kv = this.kubevirt(a.key);
    if (kv === undefined) return;
    const body = a.body as Partial<KubeVirt>;
    const next = structuredClone(kv);
    next.metadata.resourceVersion = this.nextVersion();
    if (a.subresource === 'status') next.status = body.status ?? {};
    else next.metadata.finalizers = body.metadata?.finalizers ?? [];
    const gone =
      next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0;
    if (gone) this.caches.kubevirts.store.deleteKey(a.key);
    else this.caches.kubevirts.store.add(next);
  }
}
