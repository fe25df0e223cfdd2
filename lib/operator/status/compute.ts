/**
 * The KubeVirt resource's status from what the operator observed (KubeVirt's kubevirt.go syncInstallation and
 * syncDeletion with util/client.go's condition sets): the phase, the Created, Available, Progressing and
 * Degraded conditions (Synchronized only when a sync failed), the target and observed versions, registries and
 * deployment IDs, the operator's version and the generation last deployed. The observed version moves to the
 * target only once every component is rolled over to it. Beyond KubeVirt: Created is False while objects are
 * missing, and a deployed install whose components stopped being ready, with no rollout going on, is Degraded
 * (ComponentsNotReady). Pure; an unchanged status comes back deep-equal, so the caller writes only on change.
 */
import type { KubeVirtStatus } from '../../kubevirt/v1/kubevirt.ts';
import type { TargetDeployment } from '../config/deployment.ts';
import { applyConditions, type ConditionPlan, type ConditionSpec } from './conditions.ts';
import {
  COMPONENTS,
  describeComponent,
  rolledOver,
  runsVersion,
  type ComponentsObserved,
} from './components.ts';

export interface InstallObservation {
  readonly deleting: false;
  readonly generation: number;
  /** The operator's own version (status.operatorVersion). */
  readonly operatorVersion: string;
  /** What is being installed; absent when the resource was refused before a target could be derived. */
  readonly target?: TargetDeployment;
  /** Why the last sync failed: a refused configuration, a failed apply. */
  readonly syncError?: string;
  /** The install's objects that do not exist (yet), as `Kind name`. */
  readonly missing: readonly string[];
  readonly components: ComponentsObserved;
}

export interface DeletionObservation {
  readonly deleting: true;
  /** The install's objects that still exist. */
  readonly remaining: readonly string[];
  /** Why the operator will not uninstall (workloads left under BlockUninstallIfWorkloadsExist). */
  readonly uninstallRefusal?: string;
}

export type StatusObservation = InstallObservation | DeletionObservation;

type Flag = ConditionSpec['status'];

const spec = (status: Flag, reason: string, message: string): ConditionSpec => ({ status, reason, message });

/** Available, Progressing and Degraded, with one reason and message. */
const triple = (
  [available, progressing, degraded]: readonly [Flag, Flag, Flag],
  reason: string,
  message: string,
): ConditionPlan => ({
  Available: spec(available, reason, message),
  Progressing: spec(progressing, reason, message),
  Degraded: spec(degraded, reason, message),
});

interface Outcome {
  readonly fields: KubeVirtStatus;
  readonly plan: ConditionPlan;
}

function deletion(o: DeletionObservation): Outcome {
  const plan: ConditionPlan = {
    Created: null,
    Synchronized: null,
    ...triple(['False', 'False', 'True'], 'DeletionInProgress', 'Deletion was triggered'),
  };
  if (o.uninstallRefusal !== undefined) {
    const message = `An error occurred during deletion: ${o.uninstallRefusal}`;
    plan.Synchronized = spec('False', 'DeletionFailed', message);
  }
  const done = o.remaining.length === 0 && o.uninstallRefusal === undefined;
  return { fields: { phase: done ? 'Deleted' : 'Deleting' }, plan };
}

type Target = Omit<TargetDeployment, 'config'> & { readonly config?: string };

/** The observation's target, else the one the status already names (a refused resource has none of its own). */
const targetOf = (cur: KubeVirtStatus, o: InstallObservation): Target =>
  o.target ?? {
    version: cur.targetKubeVirtVersion ?? '',
    registry: cur.targetKubeVirtRegistry ?? '',
    id: cur.targetDeploymentID ?? '',
  };

/** The conditions of a deployment in progress: Deploying on an install, Updating from another deployment. */
function progressing(cur: KubeVirtStatus, t: Target): ConditionPlan {
  const observedId = cur.observedDeploymentID ?? '';
  if (observedId === '' || observedId === t.id) {
    const message = `Deploying version ${t.version} with registry ${t.registry}`;
    return { Synchronized: null, ...triple(['False', 'True', 'False'], 'DeploymentInProgress', message) };
  }
  const from = `${cur.observedKubeVirtVersion ?? ''} with registry ${cur.observedKubeVirtRegistry ?? ''}`;
  const message = `Transitioning from previous version ${from} to target version ${t.version} using registry ${t.registry}`;
  return {
    Created: null,
    Synchronized: null,
    ...triple(['True', 'True', 'True'], 'UpdateInProgress', message),
  };
}

/** Every component rolled over: Deployed, and the target becomes the observed deployment. */
function deployed(t: Target, o: InstallObservation): Outcome {
  return {
    fields: {
      phase: 'Deployed',
      observedKubeVirtVersion: t.version,
      observedKubeVirtRegistry: t.registry,
      observedDeploymentID: t.id,
      ...(t.config !== undefined && { observedDeploymentConfig: t.config }),
      observedGeneration: o.generation,
    },
    plan: triple(['True', 'False', 'False'], 'AllComponentsReady', 'All components are ready.'),
  };
}

/** All objects exist but not every component is rolled over: still deploying, or Degraded once settled. */
function notReady(cur: KubeVirtStatus, t: Target, o: InstallObservation): ConditionPlan {
  const waiting = COMPONENTS.filter((c) => !rolledOver(c, o.components[c], t.version));
  const settled =
    cur.observedDeploymentID === t.id && COMPONENTS.every((c) => runsVersion(o.components[c], t.version));
  if (!settled) return {};
  const each = waiting.map((c) => describeComponent(c, o.components[c], t.version));
  return triple(['False', 'False', 'True'], 'ComponentsNotReady', `Not ready: ${each.join('; ')}`);
}

function installing(cur: KubeVirtStatus, o: InstallObservation): Outcome {
  const t = targetOf(cur, o);
  const fields: KubeVirtStatus = {
    operatorVersion: o.operatorVersion,
    phase: cur.phase === 'Deployed' ? 'Deployed' : 'Deploying',
    ...(o.target !== undefined && {
      targetKubeVirtVersion: o.target.version,
      targetKubeVirtRegistry: o.target.registry,
      targetDeploymentID: o.target.id,
      targetDeploymentConfig: o.target.config,
    }),
  };
  const plan = progressing(cur, t);
  if (o.syncError !== undefined) {
    const message = `An error occurred during deployment: ${o.syncError}`;
    const failed = triple(['False', 'False', 'True'], 'DeploymentFailed', message);
    return { fields, plan: { ...plan, Synchronized: spec('False', 'DeploymentFailed', message), ...failed } };
  }
  if (o.missing.length > 0) {
    const message = `Missing: ${o.missing.join(', ')}`;
    return { fields, plan: { ...plan, Created: spec('False', 'DeploymentInProgress', message) } };
  }
  const created = { ...plan, Created: spec('True', 'AllResourcesCreated', 'All resources were created.') };
  if (COMPONENTS.every((c) => rolledOver(c, o.components[c], t.version))) {
    const done = deployed(t, o);
    return { fields: { ...fields, ...done.fields }, plan: { ...created, ...done.plan } };
  }
  return { fields, plan: { ...created, ...notReady(cur, t, o) } };
}

export function computeKubeVirtStatus(
  current: KubeVirtStatus | undefined,
  observation: StatusObservation,
  now: string,
): KubeVirtStatus {
  const cur = current ?? {};
  const { fields, plan } = observation.deleting ? deletion(observation) : installing(cur, observation);
  const conditions = applyConditions(cur.conditions, plan, now);
  return {
    ...cur,
    ...fields,
    ...((cur.conditions !== undefined || conditions.length > 0) && { conditions }),
  };
}
