/**
 * Observations for the status and rollout tests: a target per version, and components rolled over to a
 * version (two api and controller replicas, three handler nodes) unless a component is changed.
 */
import type { TargetDeployment } from '../../config/deployment.ts';
import type { Component } from '../../config/install-config.ts';
import type { ComponentObservation, ComponentsObserved } from '../components.ts';
import type { InstallObservation } from '../compute.ts';

function target(version: string, registry = 'registry.example'): TargetDeployment {
  const id = `id-${registry}-${version}`;
  return { version, registry, id, config: JSON.stringify({ id, kubeVirtVersion: version }) };
}

/** A workload whose every Pod runs `version`, all ready. */
export function workload(
  version: string,
  pods: number,
  change: Partial<ComponentObservation> = {},
): ComponentObservation {
  return {
    version,
    current: true,
    desired: pods,
    pods,
    updated: pods,
    ready: pods,
    available: pods,
    ...change,
  };
}

/** Every component rolled over to `version`, but those given. */
export function components(
  version: string,
  changed: Partial<Record<Component, ComponentObservation>> = {},
): ComponentsObserved {
  return {
    'virt-api': workload(version, 2),
    'virt-controller': workload(version, 2),
    'virt-handler': workload(version, 3),
    ...changed,
  };
}

/** An install of `version` with nothing missing and every component rolled over to it, but what is given. */
export function installing(version: string, change: Partial<InstallObservation> = {}): InstallObservation {
  return {
    deleting: false,
    generation: 1,
    operatorVersion: 'v0.9.0',
    target: target(version),
    missing: [],
    components: components(version),
    ...change,
  };
}
