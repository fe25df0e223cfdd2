/**
 * Status answers about renamed resources (404, 409, 422...) on their way back: details.group, details.kind
 * (a plural or a Kind) and the `<plural>.<group>` / `<Kind>.<group>` names in the message get their original names.
 */
import type { RewriteContext } from './context.ts';
import { getRecord, getString, type JsonRecord } from './json.ts';
import { kindEntryOf, resourceEntryOf } from './names.ts';

export function restoreStatus(status: JsonRecord, ctx: RewriteContext): JsonRecord {
  if (ctx.dir !== 'restore') return status;
  const details = getRecord(status, 'details');
  const group = details && getString(details, 'group');
  if (details === undefined || group === undefined || !ctx.rules.groupByRenamed.has(group)) return status;
  const kind = getString(details, 'kind') ?? '';
  const entry = resourceEntryOf(group, kind, ctx) ?? kindEntryOf(group, kind, ctx);
  if (entry === undefined) return status;
  const { kindPrefix, resourceTypePrefix } = ctx.rules.rules;
  const original = entry.group.group;
  const byResource = kind.startsWith(resourceTypePrefix);
  const out: JsonRecord = {
    ...status,
    details: { ...details, group: original, kind: byResource ? entry.resource.plural : entry.resource.kind },
  };
  const message = getString(status, 'message');
  if (message !== undefined) {
    out['message'] = message
      .replaceAll(
        `${resourceTypePrefix}${entry.resource.plural}.${group}`,
        `${entry.resource.plural}.${original}`,
      )
      .replaceAll(`${kindPrefix}${entry.resource.kind}.${group}`, `${entry.resource.kind}.${original}`);
  }
  return out;
}
