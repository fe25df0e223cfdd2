/**
 * What the operator observes of the three workloads it rolls out, and when one counts as rolled over to a
 * version: KubeVirt's DeploymentIsReady and DaemonsetIsReady (util/readycheck.go), which want no Pod of an
 * older version left running and, for a Deployment, at least one ready Pod, for a DaemonSet one ready Pod per
 * scheduled node. KubeVirt checks each Pod's version annotations; here the workload's Pod template carries the
 * version and its status counts say how many Pods run that template. Pure.
 */
import type { Component } from '../config/install-config.ts';

/** In the order KubeVirt lists them. */
export const COMPONENTS: readonly Component[] = ['virt-api', 'virt-controller', 'virt-handler'];

/** One workload (the api's and controller's Deployments, the handler's DaemonSet) as observed. */
export interface ComponentObservation {
  /** The version its Pod template carries; absent when the workload does not exist. */
  readonly version?: string;
  /** Its controller has acted on its latest spec (status.observedGeneration ≥ metadata.generation). */
  readonly current: boolean;
  /** Pods wanted: spec.replicas (Deployment), status.desiredNumberScheduled (DaemonSet). */
  readonly desired: number;
  /** Pods of any template: status.replicas, status.currentNumberScheduled. */
  readonly pods: number;
  /** Pods of the current template: status.updatedReplicas, status.updatedNumberScheduled. */
  readonly updated: number;
  /** status.readyReplicas, status.numberReady. */
  readonly ready: number;
  /** status.availableReplicas, status.numberAvailable. */
  readonly available: number;
}

export type ComponentsObserved = Readonly<Record<Component, ComponentObservation>>;

/** A workload that does not exist yet. */
export const ABSENT: ComponentObservation = {
  current: false,
  desired: 0,
  pods: 0,
  updated: 0,
  ready: 0,
  available: 0,
};

/** Every Pod runs the current template, which is at `version`, and the controller has seen the latest spec. */
export function runsVersion(o: ComponentObservation, version: string): boolean {
  return o.version === version && o.current && o.updated >= o.desired && o.pods === o.updated;
}

/** Rolled over to `version` and ready (DeploymentIsReady / DaemonsetIsReady). */
export function rolledOver(c: Component, o: ComponentObservation, version: string): boolean {
  if (!runsVersion(o, version) || o.desired === 0) return false;
  return c === 'virt-handler' ? o.ready >= o.desired : o.ready > 0;
}

/** What a message says of a component not rolled over: `virt-handler: 1 of 3 ready, 3 updated`, `virt-api: at v1`. */
export function describeComponent(c: Component, o: ComponentObservation, version: string): string {
  if (o.version === undefined) return `${c}: not created`;
  if (o.version !== version) return `${c}: at ${o.version}`;
  return `${c}: ${String(o.ready)} of ${String(o.desired)} ready, ${String(o.updated)} updated`;
}
