/**
 * The operator's reconcile of one KubeVirt resource (KubeVirt's pkg/virt-operator/kubevirt.go execute →
 * syncInstallation / syncDeletion): its configuration read, the certificates planned, the install set rendered
 * and customized, applied where the live objects differ (workloads only as far as the rollout allows), what it
 * no longer renders deleted, and the status written when it changed. Requeued at the next certificate
 * rotation, and shortly while a rollout waits. Reads only the caches; writes through the two clients.
 */
import type { Clock } from '../../kernel/clock.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { ReconcileResult } from '../../kernel/controller/runner.ts';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { KUBEVIRT_RENAME } from '../../kubevirt/internal-gvr.ts';
import { rewriteDocument } from '../../rename/index.ts';
import { applySet, describe, pruneSet, type ApplyClient } from '../apply/apply-set.ts';
import { installedKind } from '../apply/kinds.ts';
import { targetDeployment } from '../config/deployment.ts';
import { installConfigFrom, type OperatorEnv } from '../config/from-kubevirt.ts';
import type { Component, InstallConfig, Rendered } from '../config/install-config.ts';
import { customize } from '../customize/customize.ts';
import type { CertificateIssuer } from '../generate/certs/issuer.ts';
import { planCertificates } from '../generate/certs/plan.ts';
import { renderInstall } from '../generate/install.ts';
import { WORKLOAD } from '../generate/names.ts';
import type { ComponentsObserved } from '../status/components.ts';
import type { InstallObservation } from '../status/compute.ts';
import { rolloutGate } from '../status/rollout.ts';
import type { OperatorCacheReader } from './caches.ts';
import { currentCertificates } from './current-certificates.ts';
import { observeComponents } from './observe.ts';
import type { StatusWriter } from './status-writer.ts';

export interface InstallDeps {
  readonly caches: OperatorCacheReader;
  /** Writes the install as stored. */
  readonly client: ApplyClient;
  readonly status: StatusWriter;
  readonly env: OperatorEnv;
  readonly operatorVersion: string;
  readonly issuer: CertificateIssuer;
  readonly clock: Clock;
  readonly log: Logger;
}

/** While a rollout waits for Pods, look again this often even without an event. */
const ROLLOUT_POLL_MS = 5000;

/** The workload each component is (its Deployment or DaemonSet name and kind). */
const COMPONENT_OF_WORKLOAD: ReadonlyMap<string, Component> = new Map(
  (Object.keys(WORKLOAD) as (keyof typeof WORKLOAD)[])
    .filter((c): c is Component => c !== 'virt-operator')
    .map((c) => [`${c === 'virt-handler' ? 'DaemonSet' : 'Deployment'}/${WORKLOAD[c]}`, c]),
);

/** The object as the API server stores it (renamed); what the caches hold is compared against this. */
const stored = (o: Rendered): Rendered => rewriteDocument(o, KUBEVIRT_RENAME) as Rendered;

function liveOf(caches: OperatorCacheReader, o: KubeObject): KubeObject | undefined {
  const gvr = installedKind(o.apiVersion, o.kind);
  return caches.live(gvr, o.metadata.namespace, o.metadata.name ?? '');
}

function components(caches: OperatorCacheReader, namespace: string): ComponentsObserved {
  return observeComponents((kind, name) => caches.live(installedKind('apps/v1', kind), namespace, name));
}

/** The rendered install set as stored, and when the certificates need looking at again. */
function desiredSet(
  cfg: InstallConfig,
  deps: InstallDeps,
  now: Date,
): { objects: Rendered[]; nextRotation: Date } {
  const byName =
    (resource: 'secrets' | 'configmaps') =>
    (name: string): KubeObject | undefined =>
      deps.caches.live(
        installedKind('v1', resource === 'secrets' ? 'Secret' : 'ConfigMap'),
        cfg.namespace,
        name,
      );
  const plan = planCertificates({
    cfg,
    current: currentCertificates(byName('secrets'), byName('configmaps')),
    now,
    issuer: deps.issuer,
  });
  for (const c of plan.changes)
    deps.log.info('certificate issued', { certificate: c.certificate, reason: c.reason });
  return { objects: customize(renderInstall(cfg, plan), cfg).map(stored), nextRotation: plan.nextRotation };
}

/** Installs or updates; returns when to look again. */
export async function syncInstall(kv: KubeVirt, deps: InstallDeps): Promise<ReconcileResult> {
  const now = new Date(deps.clock.now());
  const base = {
    deleting: false as const,
    generation: kv.metadata.generation ?? 0,
    operatorVersion: deps.operatorVersion,
  };
  let cfg: InstallConfig;
  try {
    cfg = installConfigFrom(kv, deps.env);
  } catch (err) {
    const observation: InstallObservation = {
      ...base,
      syncError: errorMessage(err),
      missing: [],
      components: components(deps.caches, deps.env.namespace),
    };
    await deps.status.write(kv, observation);
    deps.log.warning('KubeVirt resource refused', { reason: errorMessage(err) });
    return undefined;
  }
  const { objects, nextRotation } = desiredSet(cfg, deps, now);
  const observed = components(deps.caches, cfg.namespace);
  const gate = rolloutGate(observed, {
    target: cfg.version,
    ...(kv.status?.observedKubeVirtVersion !== undefined && { observed: kv.status.observedKubeVirtVersion }),
  });
  const held = (o: Rendered): boolean => {
    const c = COMPONENT_OF_WORKLOAD.get(`${o.kind}/${o.metadata.name ?? ''}`);
    return c !== undefined && !gate.mayUpdate.has(c);
  };
  let syncError: string | undefined;
  try {
    const applied = await applySet(
      objects.filter((o) => !held(o)),
      {
        client: deps.client,
        live: (gvr, ns, name) => deps.caches.live(gvr, ns, name),
      },
    );
    const pruned = await pruneSet(objects, deps.caches.installedObjects(), deps.client);
    if (applied.length > 0 || pruned.length > 0) deps.log.info('install synced', { applied, pruned });
  } catch (err) {
    syncError = errorMessage(err);
  }
  const missing = objects.filter((o) => liveOf(deps.caches, o) === undefined).map(describe);
  await deps.status.write(kv, {
    ...base,
    target: targetDeployment(cfg),
    ...(syncError !== undefined && { syncError }),
    missing,
    components: observed,
  });
  if (syncError !== undefined) throw new Error(syncError);
  const untilRotation = Math.max(1000, nextRotation.getTime() - now.getTime());
  const waiting = gate.waitingFor !== undefined || missing.length > 0;
  return { requeueAfterMs: waiting ? Math.min(ROLLOUT_POLL_MS, untilRotation) : untilRotation };
}
