/**
 * The kubevirt.io ⇄ internal.virtualization.deckhouse.io rename, shared by the rewriter role (the HTTP proxy)
 * and by every role that talks to the API server directly (through ./client): rules as data, indexes, and
 * `(doc, ctx) => doc` rewriters over parsed JSON that never mutate their input. Imports only lib/kernel.
 */
export type { RewriteContext } from './context.ts';
export { renameContext } from './context.ts';
export { KUBEVIRT_REWRITE_RULES } from './rules/kubevirt-rules.ts';
export { buildRuleIndex, type RuleIndex } from './rules/rule-index.ts';
export type { RewriteRules } from './rules/types.ts';
export { rewriteDocument } from './document.ts';
