/**
 * The three workloads as the status and the rollout read them (KubeVirt's util/readycheck.go reads the same
 * counts): desired, current-template, ready and available Pods, whether the workload's controller has seen its
 * latest spec, and the version its Pod template carries. From the live objects as stored. Pure.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Component } from '../config/install-config.ts';
import { LABELS, WORKLOAD } from '../generate/names.ts';
import {
  ABSENT,
  COMPONENTS,
  type ComponentObservation,
  type ComponentsObserved,
} from '../status/components.ts';

interface Workload extends KubeObject {
  spec?: { replicas?: number; template?: { metadata?: { labels?: Record<string, string> } } };
  status?: Record<string, number | undefined>;
}

const n = (v: number | undefined): number => v ?? 0;

function observed(w: Workload, daemon: boolean): ComponentObservation {
  const s = w.status ?? {};
  const version = w.spec?.template?.metadata?.labels?.[LABELS.version];
  const current = n(s['observedGeneration']) >= n(w.metadata.generation);
  return daemon
    ? {
        ...(version !== undefined && { version }),
        current,
        desired: n(s['desiredNumberScheduled']),
        pods: n(s['currentNumberScheduled']),
        updated: n(s['updatedNumberScheduled']),
        ready: n(s['numberReady']),
        available: n(s['numberAvailable']),
      }
    : {
        ...(version !== undefined && { version }),
        current,
        desired: w.spec?.replicas ?? 1,
        pods: n(s['replicas']),
        updated: n(s['updatedReplicas']),
        ready: n(s['readyReplicas']),
        available: n(s['availableReplicas']),
      };
}

/** `workload(kind, name)` looks a Deployment or the DaemonSet up in the caches. */
export function observeComponents(
  workload: (kind: 'Deployment' | 'DaemonSet', name: string) => KubeObject | undefined,
): ComponentsObserved {
  const one = (c: Component): ComponentObservation => {
    const daemon = c === 'virt-handler';
    const w = workload(daemon ? 'DaemonSet' : 'Deployment', WORKLOAD[c]);
    return w === undefined ? ABSENT : observed(w, daemon);
  };
  return Object.fromEntries(COMPONENTS.map((c) => [c, one(c)])) as Record<Component, ComponentObservation>;
}
