/**
 * One API object (never a list): kind-specific fields, then metadata. Core kinds are dispatched by kind; any other
 * kind is a custom resource, rewritten when its group and kind have a rule. On restore an excluded object is SKIP.
 */
import type { RewriteContext } from './context.ts';
import { rewriteAdmissionPolicy, rewriteAdmissionPolicyBinding } from './admission-policy.ts';
import { rewriteCrd } from './crd.ts';
import { rewriteCustomResource } from './custom-resource.ts';
import { rewriteEvent } from './events.ts';
import { isExcluded, type ObjectType } from './exclude.ts';
import { getString, isSkip, SKIP, type JsonRecord, type Skip } from './json.ts';
import { rewriteObjectMetadata } from './metadata.ts';
import { rewriteRole } from './rbac.ts';
import { rewriteWebhookConfiguration } from './webhook-config.ts';
import {
  rewriteCronJob,
  rewritePod,
  rewritePvc,
  rewriteService,
  rewriteSpecSelector,
  rewriteWorkload,
} from './workloads.ts';

type KindRewriter = (obj: JsonRecord, ctx: RewriteContext) => JsonRecord | Skip;

const BY_KIND: ReadonlyMap<string, KindRewriter> = new Map<string, KindRewriter>([
  ['CustomResourceDefinition', rewriteCrd],
  ['MutatingWebhookConfiguration', rewriteWebhookConfiguration],
  ['ValidatingWebhookConfiguration', rewriteWebhookConfiguration],
  ['Event', rewriteEvent],
  ['ClusterRole', rewriteRole],
  ['Role', rewriteRole],
  ['Deployment', rewriteWorkload],
  ['StatefulSet', rewriteWorkload],
  ['DaemonSet', rewriteWorkload],
  ['ReplicaSet', rewriteWorkload],
  ['Job', rewriteWorkload],
  ['CronJob', rewriteCronJob],
  ['Pod', rewritePod],
  ['PodDisruptionBudget', rewriteSpecSelector],
  ['ServiceMonitor', rewriteSpecSelector],
  ['Service', rewriteService],
  ['PersistentVolumeClaim', rewritePvc],
  ['ValidatingAdmissionPolicy', rewriteAdmissionPolicy],
  ['ValidatingAdmissionPolicyBinding', rewriteAdmissionPolicyBinding],
]);

/** The object's own kind/apiVersion win over `type` (the list's, for list items without them). */
export function objectTypeOf(obj: JsonRecord, type: ObjectType = {}): ObjectType {
  return {
    kind: getString(obj, 'kind') ?? type.kind,
    apiVersion: getString(obj, 'apiVersion') ?? type.apiVersion,
  };
}

/** Rewrites one object without the exclusion check (AdmissionReview objects, patches). */
export function rewriteObjectBody(
  obj: JsonRecord,
  kind: string | undefined,
  ctx: RewriteContext,
): JsonRecord | Skip {
  const byKind = kind === undefined ? undefined : BY_KIND.get(kind);
  const out = byKind ? byKind(obj, ctx) : rewriteCustomResource(obj, ctx);
  return isSkip(out) ? out : rewriteObjectMetadata(out, ctx);
}

export function rewriteObject(obj: JsonRecord, ctx: RewriteContext, type?: ObjectType): JsonRecord | Skip {
  const t = objectTypeOf(obj, type);
  if (isExcluded(obj, t, ctx)) return SKIP;
  return rewriteObjectBody(obj, t.kind, ctx);
}
