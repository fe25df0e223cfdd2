/**
 * Legacy discovery bodies on their way back to the client: APIGroupList (/apis), APIGroup (/apis/<group>) and
 * APIResourceList (/apis/<group>/<v>). Renamed groups and resources get their original names; groups that exist
 * on the server under an original name are dropped (the restored ones would otherwise appear twice); resources of
 * a renamed group that have no rule are dropped too.
 */
import type { RewriteContext } from './context.ts';
import {
  getString,
  mapRecords,
  SKIP,
  updateArray,
  updateRecord,
  updateString,
  type JsonRecord,
} from './json.ts';
import {
  kindEntryOf,
  resourceEntryOf,
  rewriteApiVersion,
  rewriteCategories,
  rewriteGroup,
  rewriteShortName,
} from './names.ts';
import type { ResourceEntry } from './rules/rule-index.ts';

function restoreGroupVersions(group: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateString(group, 'name', (n) => rewriteGroup(n, ctx));
  out = updateArray(out, 'versions', (vs) =>
    mapRecords(vs, (v) => updateString(v, 'groupVersion', (gv) => rewriteApiVersion(gv, ctx))),
  );
  return updateRecord(out, 'preferredVersion', (v) =>
    updateString(v, 'groupVersion', (gv) => rewriteApiVersion(gv, ctx)),
  );
}

export function restoreApiGroup(group: JsonRecord, ctx: RewriteContext): JsonRecord {
  const name = getString(group, 'name') ?? '';
  return ctx.rules.groupByRenamed.has(name) ? restoreGroupVersions(group, ctx) : group;
}

export function restoreApiGroupList(list: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateArray(list, 'groups', (groups) =>
    mapRecords(groups, (g) =>
      ctx.rules.groupByOriginal.has(getString(g, 'name') ?? '') ? SKIP : restoreApiGroup(g, ctx),
    ),
  );
}

/** singularName, shortNames, categories of an APIResource or APIResourceDiscovery. */
export function restoreResourceNames(res: JsonRecord, entry: ResourceEntry, ctx: RewriteContext): JsonRecord {
  const prefix = ctx.rules.rules.resourceTypePrefix;
  let out = res;
  for (const key of ['singularName', 'singularResource']) {
    out = updateString(out, key, (s) => (s.startsWith(prefix) ? s.slice(prefix.length) : s));
  }
  out = updateArray(out, 'shortNames', (names) =>
    names.map((n) => (typeof n === 'string' ? rewriteShortName(n, ctx) : n)),
  );
  return updateArray(out, 'categories', (cats) => rewriteCategories(cats, entry, ctx));
}

function restoreApiResource(res: JsonRecord, renamedGroup: string, ctx: RewriteContext): unknown {
  const name = getString(res, 'name') ?? '';
  const entry = resourceEntryOf(renamedGroup, name, ctx);
  if (entry === undefined) return SKIP;
  const slash = name.indexOf('/');
  let out: JsonRecord = { ...res, name: entry.resource.plural + (slash === -1 ? '' : name.slice(slash)) };
  const kind = getString(out, 'kind');
  if (kind !== undefined && kindEntryOf(renamedGroup, kind, ctx)) out = { ...out, kind: entry.resource.kind };
  return slash === -1 ? restoreResourceNames(out, entry, ctx) : out;
}

export function restoreApiResourceList(list: JsonRecord, ctx: RewriteContext): JsonRecord {
  const groupVersion = getString(list, 'groupVersion') ?? '';
  const slash = groupVersion.indexOf('/');
  const group = slash === -1 ? '' : groupVersion.slice(0, slash);
  if (!ctx.rules.groupByRenamed.has(group)) return list;
  const out = { ...list, groupVersion: rewriteApiVersion(groupVersion, ctx) };
  return updateArray(out, 'resources', (rs) => mapRecords(rs, (r) => restoreApiResource(r, group, ctx)));
}
