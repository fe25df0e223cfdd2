/**
 * Mutating/ValidatingWebhookConfigurations: each webhook's rules (groups and resources), its objectSelector
 * (object labels are rewritten, so is the selector) and clientConfig.service.path: the path the real webhook
 * serves (WebhookRule.path) on the original side, the path the webhook proxy serves (the rule's key) on the
 * renamed side.
 */
import type { RewriteContext } from './context.ts';
import { updateLabelSelector } from './label-selector.ts';
import { mapRecords, updateArray, updateIn, updateString, type JsonRecord } from './json.ts';
import { rewriteResourceRules } from './resource-rules.ts';

function rewriteWebhookPath(path: string, ctx: RewriteContext): string {
  for (const [proxyPath, rule] of ctx.rules.webhooks) {
    if (ctx.dir === 'rename' && rule.path === path) return proxyPath;
    if (ctx.dir === 'restore' && proxyPath === path) return rule.path;
  }
  return path;
}

function rewriteWebhook(webhook: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateArray(webhook, 'rules', (rules) => rewriteResourceRules(rules, ctx));
  out = updateLabelSelector(out, 'objectSelector', ctx);
  return updateIn(out, ['clientConfig', 'service'], (svc) =>
    updateString(svc, 'path', (p) => rewriteWebhookPath(p, ctx)),
  );
}

export function rewriteWebhookConfiguration(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateArray(obj, 'webhooks', (hooks) => mapRecords(hooks, (h) => rewriteWebhook(h, ctx)));
}
