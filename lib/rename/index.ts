/**
 * The kubevirt.io ⇄ internal.virtualization.deckhouse.io rename, shared by the rewriter role (the HTTP proxy)
 * and by every role that talks to the API server directly (through ./client): rules as data, indexes, and
 * `(doc, ctx) => doc` rewriters over parsed JSON that never mutate their input. Imports only lib/kernel.
 */
export type { RewriteContext } from './context.ts';
export { renameContext, restoreContext } from './context.ts';
export { isSkip, SKIP, type JsonRecord, type Skip } from './json.ts';
export type { ObjectType } from './exclude.ts';
export { KUBEVIRT_REWRITE_RULES } from './rules/kubevirt-rules.ts';
export { buildRuleIndex, type RuleIndex } from './rules/rule-index.ts';
export { PRESERVED_PREFIX } from './rules/name-rules.ts';
export type { Direction, RewriteRules } from './rules/types.ts';
export { parseTarget, targetUrl, type ApiTarget } from './target.ts';
export { rewriteTarget, shouldRewriteBodies, REWRITTEN_RESOURCES } from './target-rewrite.ts';
export { rewriteDocument, rewriteList, rewriteListEnvelope, listItemRewriter, isList } from './document.ts';
export { rewriteObject } from './object.ts';
export { rewriteWatchEvent } from './watch.ts';
export { rewriteAdmissionReview } from './admission-review.ts';
export { rewritePatch, type PatchType } from './patch.ts';
export { patchTargetOf, type PatchTarget } from './patch-target.ts';
export { notFoundStatus } from './not-found.ts';
