/**
 * Lookup indexes over a rule set, built once (pure): every rename/restore lookup is one Map access.
 * Keys join a group with a name: `<group>/<plural>`, `<group>/<Kind>`.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import { compileNameRules, type NameRules } from './name-rules.ts';
import type { ExcludeRule, GroupRule, ResourceRule, RewriteRules, WebhookRule } from './types.ts';

export interface ResourceEntry {
  readonly group: GroupRule;
  readonly resource: ResourceRule;
}

export interface KindEntry extends ResourceEntry {
  /** True when the kind looked up was the list kind. */
  readonly isList: boolean;
}

export interface RuleIndex {
  readonly rules: RewriteRules;
  readonly labels: NameRules;
  readonly annotations: NameRules;
  readonly finalizers: NameRules;
  /** Original group → rule, renamed group → rule. */
  readonly groupByOriginal: ReadonlyMap<string, GroupRule>;
  readonly groupByRenamed: ReadonlyMap<string, GroupRule>;
  /** `<originalGroup>/<plural>` and `<renamedGroup>/<prefixedPlural>`. */
  readonly resourceByOriginal: ReadonlyMap<string, ResourceEntry>;
  readonly resourceByRenamed: ReadonlyMap<string, ResourceEntry>;
  /** `<originalGroup>/<Kind|ListKind>` and `<renamedGroup>/<PrefixedKind|PrefixedListKind>`. */
  readonly kindByOriginal: ReadonlyMap<string, KindEntry>;
  readonly kindByRenamed: ReadonlyMap<string, KindEntry>;
  /** Short name → resource: 'vm' and 'intvirtvm'. */
  readonly shortNameByOriginal: ReadonlyMap<string, ResourceEntry>;
  readonly shortNameByRenamed: ReadonlyMap<string, ResourceEntry>;
  /** Original Kind or ListKind → its original groups (the implicit excludes on restore). */
  readonly originalKinds: ReadonlyMap<string, ReadonlySet<string>>;
  readonly webhooks: ReadonlyMap<string, WebhookRule>;
  readonly excludes: readonly ExcludeRule[];
}

export const joinKey = (group: string, name: string): string => `${group}/${name}`;

function setUnique<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.has(key)) throw new KvError('KV_ERR_CONFIG', `rewrite rules: duplicate entry ${key}`);
  map.set(key, value);
}

interface Maps {
  readonly groupByOriginal: Map<string, GroupRule>;
  readonly groupByRenamed: Map<string, GroupRule>;
  readonly resourceByOriginal: Map<string, ResourceEntry>;
  readonly resourceByRenamed: Map<string, ResourceEntry>;
  readonly kindByOriginal: Map<string, KindEntry>;
  readonly kindByRenamed: Map<string, KindEntry>;
  readonly shortNameByOriginal: Map<string, ResourceEntry>;
  readonly shortNameByRenamed: Map<string, ResourceEntry>;
  readonly originalKinds: Map<string, Set<string>>;
}

function indexResource(maps: Maps, rules: RewriteRules, group: GroupRule, resource: ResourceRule): void {
  const entry: ResourceEntry = { group, resource };
  setUnique(maps.resourceByOriginal, joinKey(group.group, resource.plural), entry);
  setUnique(
    maps.resourceByRenamed,
    joinKey(group.renamed, rules.resourceTypePrefix + resource.plural),
    entry,
  );
  for (const short of resource.shortNames) {
    setUnique(maps.shortNameByOriginal, short, entry);
    setUnique(maps.shortNameByRenamed, rules.shortNamePrefix + short, entry);
  }
  for (const [kind, isList] of [
    [resource.kind, false],
    [resource.listKind, true],
  ] as const) {
    setUnique(maps.kindByOriginal, joinKey(group.group, kind), { group, resource, isList });
    setUnique(maps.kindByRenamed, joinKey(group.renamed, rules.kindPrefix + kind), {
      group,
      resource,
      isList,
    });
    const groups = maps.originalKinds.get(kind) ?? new Set<string>();
    groups.add(group.group);
    maps.originalKinds.set(kind, groups);
  }
}

export function buildRuleIndex(rules: RewriteRules): RuleIndex {
  const maps: Maps = {
    groupByOriginal: new Map(),
    groupByRenamed: new Map(),
    resourceByOriginal: new Map(),
    resourceByRenamed: new Map(),
    kindByOriginal: new Map(),
    kindByRenamed: new Map(),
    shortNameByOriginal: new Map(),
    shortNameByRenamed: new Map(),
    originalKinds: new Map(),
  };
  for (const { groupRule, resources } of rules.groups) {
    setUnique(maps.groupByOriginal, groupRule.group, groupRule);
    setUnique(maps.groupByRenamed, groupRule.renamed, groupRule);
    for (const resource of resources) indexResource(maps, rules, groupRule, resource);
  }
  return {
    rules,
    labels: compileNameRules(rules.labels),
    annotations: compileNameRules(rules.annotations),
    finalizers: compileNameRules(rules.finalizers),
    ...maps,
    webhooks: new Map(Object.entries(rules.webhooks)),
    excludes: rules.excludes,
  };
}
