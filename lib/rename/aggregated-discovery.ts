/**
 * Aggregated discovery (APIGroupDiscoveryList, apidiscovery.k8s.io v2 and v2beta1) on its way back to the client.
 * A renamed group becomes its original group, keeping the order of versions and their freshness; resources
 * without a rule are dropped; groups that exist on the server under an original name are dropped.
 */
import type { RewriteContext } from './context.ts';
import { restoreResourceNames } from './discovery.ts';
import {
  getRecord,
  getString,
  mapRecords,
  SKIP,
  updateArray,
  updateRecord,
  type JsonRecord,
} from './json.ts';
import { resourceEntryOf } from './names.ts';
import type { ResourceEntry } from './rules/rule-index.ts';

/** responseKind {group, version, kind} pointing at the renamed kind → the original group and kind. */
function restoreResponseKind(holder: JsonRecord, renamedGroup: string, entry: ResourceEntry): JsonRecord {
  return updateRecord(holder, 'responseKind', (rk) => {
    if (getString(rk, 'group') !== renamedGroup) return rk;
    return { ...rk, group: entry.group.group, kind: entry.resource.kind };
  });
}

function restoreResourceDiscovery(res: JsonRecord, renamedGroup: string, ctx: RewriteContext): unknown {
  const entry = resourceEntryOf(renamedGroup, getString(res, 'resource') ?? '', ctx);
  if (entry === undefined) return SKIP;
  let out: JsonRecord = { ...res, resource: entry.resource.plural };
  out = restoreResponseKind(out, renamedGroup, entry);
  out = restoreResourceNames(out, entry, ctx);
  return updateArray(out, 'subresources', (subs) =>
    mapRecords(subs, (s) => restoreResponseKind(s, renamedGroup, entry)),
  );
}

function restoreGroupDiscovery(item: JsonRecord, ctx: RewriteContext): unknown {
  const name = getString(getRecord(item, 'metadata') ?? {}, 'name') ?? '';
  if (ctx.rules.groupByOriginal.has(name)) return SKIP;
  const rule = ctx.rules.groupByRenamed.get(name);
  if (rule === undefined) return item;
  const out = updateRecord(item, 'metadata', (m) => ({ ...m, name: rule.group }));
  return updateArray(out, 'versions', (versions) =>
    mapRecords(versions, (v) =>
      updateArray(v, 'resources', (rs) => mapRecords(rs, (r) => restoreResourceDiscovery(r, name, ctx))),
    ),
  );
}

export function restoreApiGroupDiscoveryList(list: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateArray(list, 'items', (items) => mapRecords(items, (item) => restoreGroupDiscovery(item, ctx)));
}
