/**
 * Kind-specific fields of core and apps objects: workload selectors and pod templates, Pods, Services,
 * PodDisruptionBudgets, PersistentVolumeClaims (dataSource/dataSourceRef) and ServiceMonitors.
 */
import type { RewriteContext } from './context.ts';
import { rewriteGroupKindRef } from './gvk.ts';
import { updateLabelSelector } from './label-selector.ts';
import { updateIn, updateRecord, type JsonRecord } from './json.ts';
import { rewriteLabelMap, rewriteMetadata } from './metadata.ts';
import { rewritePodSpec, rewritePodTemplate } from './pod-spec.ts';

/** spec.selector and spec.template of Deployments, StatefulSets, DaemonSets, ReplicaSets and Jobs. */
function rewriteWorkloadSpec(spec: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateLabelSelector(spec, 'selector', ctx);
  return updateRecord(out, 'template', (t) => rewritePodTemplate(t, ctx));
}

export function rewriteWorkload(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateRecord(obj, 'spec', (spec) => rewriteWorkloadSpec(spec, ctx));
}

export function rewriteCronJob(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec', 'jobTemplate'], (jt) => {
    const out = updateRecord(jt, 'metadata', (m) => rewriteMetadata(m, ctx));
    return updateRecord(out, 'spec', (spec) => rewriteWorkloadSpec(spec, ctx));
  });
}

export function rewritePod(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateRecord(obj, 'spec', (spec) => rewritePodSpec(spec, ctx));
}

export function rewriteService(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec'], (spec) => updateRecord(spec, 'selector', (m) => rewriteLabelMap(m, ctx)));
}

/** PodDisruptionBudgets and ServiceMonitors: spec.selector is a LabelSelector. */
export function rewriteSpecSelector(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec'], (spec) => updateLabelSelector(spec, 'selector', ctx));
}

export function rewritePvc(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec'], (spec) => {
    const out = updateRecord(spec, 'dataSource', (ref) => rewriteGroupKindRef(ref, ctx));
    return updateRecord(out, 'dataSourceRef', (ref) => rewriteGroupKindRef(ref, ctx));
  });
}
