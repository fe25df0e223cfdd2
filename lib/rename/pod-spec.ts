/**
 * Pod specs and pod templates: nodeSelector, node affinity, pod (anti-)affinity and topology spread constraints
 * refer to node and pod labels, so their keys (and key=value pairs) follow the label rules.
 * namespaceSelector is left alone: Namespace labels are not rewritten.
 */
import type { RewriteContext } from './context.ts';
import { updateLabelSelector, rewriteRequirements } from './label-selector.ts';
import { mapRecords, mapStrings, updateArray, updateRecord, updateString, type JsonRecord } from './json.ts';
import { rewriteLabelMap, rewriteMetadata } from './metadata.ts';

function rewriteNodeSelectorTerm(term: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateArray(term, 'matchExpressions', (reqs) => rewriteRequirements(reqs, ctx));
}

function rewriteNodeAffinity(aff: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateRecord(aff, 'requiredDuringSchedulingIgnoredDuringExecution', (req) =>
    updateArray(req, 'nodeSelectorTerms', (terms) =>
      mapRecords(terms, (t) => rewriteNodeSelectorTerm(t, ctx)),
    ),
  );
  return updateArray(out, 'preferredDuringSchedulingIgnoredDuringExecution', (prefs) =>
    mapRecords(prefs, (p) => updateRecord(p, 'preference', (t) => rewriteNodeSelectorTerm(t, ctx))),
  );
}

function rewriteLabelKeys(keys: unknown[], ctx: RewriteContext): unknown[] {
  return mapStrings(keys, (k) => ctx.rules.labels.rewriteKey(ctx.dir, k));
}

function rewritePodAffinityTerm(term: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateLabelSelector(term, 'labelSelector', ctx);
  out = updateString(out, 'topologyKey', (k) => ctx.rules.labels.rewriteKey(ctx.dir, k));
  out = updateArray(out, 'matchLabelKeys', (keys) => rewriteLabelKeys(keys, ctx));
  return updateArray(out, 'mismatchLabelKeys', (keys) => rewriteLabelKeys(keys, ctx));
}

function rewritePodAffinity(aff: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateArray(aff, 'requiredDuringSchedulingIgnoredDuringExecution', (terms) =>
    mapRecords(terms, (t) => rewritePodAffinityTerm(t, ctx)),
  );
  return updateArray(out, 'preferredDuringSchedulingIgnoredDuringExecution', (prefs) =>
    mapRecords(prefs, (p) => updateRecord(p, 'podAffinityTerm', (t) => rewritePodAffinityTerm(t, ctx))),
  );
}

function rewriteAffinity(aff: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateRecord(aff, 'nodeAffinity', (a) => rewriteNodeAffinity(a, ctx));
  out = updateRecord(out, 'podAffinity', (a) => rewritePodAffinity(a, ctx));
  return updateRecord(out, 'podAntiAffinity', (a) => rewritePodAffinity(a, ctx));
}

function rewriteTopologySpread(c: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateLabelSelector(c, 'labelSelector', ctx);
  out = updateString(out, 'topologyKey', (k) => ctx.rules.labels.rewriteKey(ctx.dir, k));
  return updateArray(out, 'matchLabelKeys', (keys) => rewriteLabelKeys(keys, ctx));
}

export function rewritePodSpec(spec: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateRecord(spec, 'nodeSelector', (m) => rewriteLabelMap(m, ctx));
  out = updateRecord(out, 'affinity', (a) => rewriteAffinity(a, ctx));
  return updateArray(out, 'topologySpreadConstraints', (cs) =>
    mapRecords(cs, (c) => rewriteTopologySpread(c, ctx)),
  );
}

/** metadata (labels, annotations) and spec of a PodTemplateSpec. */
export function rewritePodTemplate(template: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateRecord(template, 'metadata', (m) => rewriteMetadata(m, ctx));
  return updateRecord(out, 'spec', (s) => rewritePodSpec(s, ctx));
}
