/**
 * Random API objects for the round-trip property tests, on either side of the rewriter:
 * - 'client': what a KubeVirt client sends (original names, preserved-original- keys, neutral keys);
 * - 'server': what the API server holds (renamed names, original keys set by someone else, neutral keys).
 * Every kind of the rule set is covered, plus the core kinds with kind-specific rewriting.
 */
import type { ResourceEntry, RuleIndex } from '../rules/rule-index.ts';
import { PRESERVED_PREFIX } from '../rules/name-rules.ts';
import type { MetadataReplace, ResourceRule } from '../rules/types.ts';
import type { Prng } from './prng.ts';

export type Side = 'client' | 'server';
type Obj = Record<string, unknown>;

export interface GenResource {
  readonly group: string;
  readonly renamed: string;
  readonly version: string;
  readonly resource: ResourceRule;
}

const WORDS = ['a', 'vm', 'node1', 'x-y', 'created-by', 'Haswell', 'schedulable', 'z.z'];
const NEUTRAL_KEYS = [
  'app',
  'app.kubernetes.io/name',
  'example.com/x',
  'kubernetes.io/os',
  `${PRESERVED_PREFIX}example.com/x`,
];
const MANAGED_BY = 'app.kubernetes.io/managed-by';

export class ObjectGenerator {
  constructor(
    private readonly rng: Prng,
    private readonly rules: RuleIndex,
    private readonly side: Side,
  ) {}

  private word(): string {
    return this.rng.pick(WORDS);
  }

  /** A key matched by one of the rules, on the original side. */
  private originalKey(replace: MetadataReplace): string {
    const names = replace.names.filter((r) => r.originalValue === undefined).map((r) => r.original);
    const prefixes = replace.prefixes.map((r) => `${r.original}/${this.word()}`);
    return this.rng.pick([...names, ...prefixes]);
  }

  private key(replace: MetadataReplace, rewrite: (k: string) => string): string {
    const roll = this.rng.int(4);
    if (roll === 0) return this.rng.pick(NEUTRAL_KEYS);
    const original = this.originalKey(replace);
    if (roll === 1) return original;
    if (this.side === 'client') return roll === 2 ? PRESERVED_PREFIX + original : original;
    return rewrite(original);
  }

  keyMap(kind: 'labels' | 'annotations'): Obj {
    const rules = this.rules[kind];
    const out: Obj = {};
    for (let i = this.rng.int(6); i > 0; i--)
      out[this.key(this.rules.rules[kind], (k) => rules.rewriteKey('rename', k))] = this.word();
    if (kind === 'labels' && this.rng.bool(0.3)) this.managedBy(out);
    return out;
  }

  private managedBy(out: Obj): void {
    const values = ['virt-operator', 'kubevirt-operator', 'Helm'];
    const value = this.rng.pick(values);
    const [key, v] =
      this.side === 'server' && this.rng.bool()
        ? this.rules.labels.rewrite('rename', MANAGED_BY, value)
        : [MANAGED_BY, value];
    out[this.side === 'client' && this.rng.bool(0.3) ? PRESERVED_PREFIX + key : key] = v;
  }

  finalizers(): string[] {
    const rules = this.rules.finalizers;
    return Array.from({ length: this.rng.int(3) }, () =>
      this.rng.bool(0.3)
        ? 'foregroundDeleteVirtualMachine'
        : this.key(this.rules.rules.finalizers, (k) => rules.rewriteKey('rename', k)),
    );
  }

  /** A random resource with rules, or the given one with a random version of its group. */
  resourceRule(entry?: ResourceEntry): GenResource {
    if (entry !== undefined) {
      const { group, resource } = entry;
      return { group: group.group, renamed: group.renamed, version: this.rng.pick(group.versions), resource };
    }
    const { groupRule, resources } = this.rng.pick(this.rules.rules.groups);
    return {
      group: groupRule.group,
      renamed: groupRule.renamed,
      version: this.rng.pick(groupRule.versions),
      resource: this.rng.pick(resources),
    };
  }

  /** apiVersion and kind of a custom resource with rules, on this side. */
  typeOf(r = this.resourceRule(), list = false): { apiVersion: string; kind: string } {
    const kind = list ? r.resource.listKind : r.resource.kind;
    if (this.side === 'client') return { apiVersion: `${r.group}/${r.version}`, kind };
    return { apiVersion: `${r.renamed}/${r.version}`, kind: this.rules.rules.kindPrefix + kind };
  }

  ref(): Obj {
    const neutral = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
      { apiVersion: 'v1', kind: 'Pod' },
      { apiVersion: 'other.io/v1', kind: 'VirtualMachine' },
    ];
    const type = this.rng.bool(0.6) ? this.typeOf() : this.rng.pick(neutral);
    return { ...type, name: this.word(), uid: `uid-${String(this.rng.int(1000))}` };
  }

  metadata(): Obj {
    const meta: Obj = { name: this.word(), namespace: 'ns', resourceVersion: String(this.rng.int(1e6)) };
    if (this.rng.bool(0.8)) meta['labels'] = this.keyMap('labels');
    if (this.rng.bool(0.6)) meta['annotations'] = this.keyMap('annotations');
    if (this.rng.bool(0.5)) meta['finalizers'] = this.finalizers();
    if (this.rng.bool(0.5))
      meta['ownerReferences'] = Array.from({ length: this.rng.int(3) }, () => this.ref());
    return meta;
  }

  /** A LabelSelector; multi-valued requirements only on keys without key=value rules. */
  selector(): Obj {
    const rules = this.rules.labels;
    const expr = (): Obj => {
      const key = this.key(this.rules.rules.labels, (k) => rules.rewriteKey('rename', k));
      if (this.rng.bool(0.3)) return { key, operator: 'Exists' };
      return { key, operator: this.rng.pick(['In', 'NotIn']), values: this.rng.some(WORDS, 3) };
    };
    return {
      matchLabels: this.keyMap('labels'),
      matchExpressions: Array.from({ length: this.rng.int(3) }, expr),
    };
  }

  customResource(r = this.resourceRule()): Obj {
    return {
      ...this.typeOf(r),
      metadata: this.metadata(),
      spec: { template: { metadata: { labels: { 'kubevirt.io/vm': 'x' } } } },
    };
  }

  customResourceList(r = this.resourceRule()): Obj {
    const items = Array.from({ length: this.rng.int(4) }, () => ({
      ...this.typeOf(r),
      metadata: this.metadata(),
    }));
    return { ...this.typeOf(r, true), metadata: { resourceVersion: '1' }, items };
  }
}
