/**
 * Which components the operator may bring to the target version now, in the order KubeVirt rolls them out
 * (reconcile.go Sync, createOrRollBackSystem, update.go updateKubeVirtSystem). On an install, or a move to a
 * version that is not higher, the api goes first, and the controller and the handler together once the api is
 * rolled over (readycheck.go), so validation runs before anything acts. On an update the handler goes first so
 * every node handles what is new, then the controller, and the api, which turns the new features on, last:
 * each step once the one before is rolled over. A component already rolled over at the target holds nothing
 * up. Pure.
 */
import type { Component } from '../config/install-config.ts';
import { describeComponent, rolledOver, type ComponentsObserved } from './components.ts';
import { isUpdatePath } from './semver.ts';

export interface RolloutVersions {
  /** The version being installed (status.targetKubeVirtVersion). */
  readonly target: string;
  /** The version last seen fully installed (status.observedKubeVirtVersion); absent before the first. */
  readonly observed?: string;
}

export interface RolloutGate {
  /** The components whose workloads may be applied at the target now (those already there among them). */
  readonly mayUpdate: ReadonlySet<Component>;
  /** The components of the current step not rolled over yet, described; absent once all are. */
  readonly waitingFor?: string;
}

type Steps = readonly (readonly Component[])[];

const INSTALL_STEPS: Steps = [['virt-api'], ['virt-controller', 'virt-handler']];
const UPDATE_STEPS: Steps = [['virt-handler'], ['virt-controller'], ['virt-api']];

export function rolloutGate(components: ComponentsObserved, versions: RolloutVersions): RolloutGate {
  const steps = isUpdatePath(versions.target, versions.observed) ? UPDATE_STEPS : INSTALL_STEPS;
  const mayUpdate = new Set<Component>();
  for (const step of steps) {
    for (const c of step) mayUpdate.add(c);
    const pending = step.filter((c) => !rolledOver(c, components[c], versions.target));
    if (pending.length > 0) {
      const waitingFor = pending.map((c) => describeComponent(c, components[c], versions.target)).join('; ');
      return { mayUpdate, waitingFor };
    }
  }
  return { mayUpdate };
}
