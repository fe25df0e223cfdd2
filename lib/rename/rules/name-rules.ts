/**
 * Compiled metadata key rules (labels, annotations, finalizers) with the "preserved original" mechanics
 * (kube-api-rewriter prefixed_name_rewriter.go):
 * - rename: `preserved-original-<key>` → `<key>` when <key> is an original key; key=value rules, then exact
 *   names, then the prefix before '/'.
 * - restore: a key that is already original (set on the server by someone else) is hidden as
 *   `preserved-original-<key>`; otherwise key=value rules, exact names, prefixes, in reverse.
 */
import type { Direction, MetadataReplace } from './types.ts';

export const PRESERVED_PREFIX = 'preserved-original-';

type Pair = readonly [key: string, value: string | undefined];

export interface NameRules {
  /** Rewrites a key and, for key=value rules, its value. value undefined: a key alone (finalizers, selectors). */
  rewrite(dir: Direction, key: string, value?: string): Pair;
  rewriteKey(dir: Direction, key: string): string;
  /** True when a key (with this value, if given) matches an original-side rule. */
  isOriginal(key: string, value?: string): boolean;
}

function prefixOf(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash > 0 ? key.slice(0, slash) : undefined;
}

interface Index {
  readonly names: Map<string, string>;
  /** key → value → the rewritten pair, for key=value rules (looked up by key first: values can be long). */
  readonly pairs: Map<string, Map<string, Pair>>;
  readonly prefixes: Map<string, string>;
}

function buildIndex(rules: MetadataReplace, reverse: boolean): Index {
  const index: Index = { names: new Map(), pairs: new Map(), prefixes: new Map() };
  for (const r of rules.names) {
    const [from, to] = reverse ? [r.renamed, r.original] : [r.original, r.renamed];
    const [fromValue, toValue] = reverse
      ? [r.renamedValue, r.originalValue]
      : [r.originalValue, r.renamedValue];
    if (fromValue === undefined || toValue === undefined) {
      index.names.set(from, to);
      continue;
    }
    const byValue = index.pairs.get(from) ?? new Map<string, Pair>();
    byValue.set(fromValue, [to, toValue]);
    index.pairs.set(from, byValue);
  }
  for (const r of rules.prefixes) {
    if (reverse) index.prefixes.set(r.renamed, r.original);
    else index.prefixes.set(r.original, r.renamed);
  }
  return index;
}

function apply(index: Index, key: string, value: string | undefined): Pair | undefined {
  const pair = value === undefined ? undefined : index.pairs.get(key)?.get(value);
  if (pair) return pair;
  const name = index.names.get(key);
  if (name !== undefined) return [name, value];
  const prefix = prefixOf(key);
  if (prefix === undefined) return undefined;
  const renamedPrefix = index.prefixes.get(prefix);
  return renamedPrefix === undefined ? undefined : [renamedPrefix + key.slice(prefix.length), value];
}

export function compileNameRules(rules: MetadataReplace): NameRules {
  const forward = buildIndex(rules, false);
  const backward = buildIndex(rules, true);

  const isOriginal = (key: string, value?: string): boolean => {
    if (value !== undefined && forward.pairs.get(key)?.has(value) === true) return true;
    if (forward.names.has(key)) return true;
    const prefix = prefixOf(key);
    return prefix !== undefined && forward.prefixes.has(prefix);
  };
  /**
   * A preserved key comes back only when what follows the prefix is an original key with this value (any value
   * of a key=value rule when there is no value), so that restore(rename(x)) is x.
   */
  const isPreserved = (key: string, value: string | undefined): boolean => {
    if (!key.startsWith(PRESERVED_PREFIX)) return false;
    const inner = key.slice(PRESERVED_PREFIX.length);
    return isOriginal(inner, value) || (value === undefined && forward.pairs.has(inner));
  };

  const rename = (key: string, value: string | undefined): Pair => {
    if (isPreserved(key, value)) return [key.slice(PRESERVED_PREFIX.length), value];
    return apply(forward, key, value) ?? [key, value];
  };
  const restore = (key: string, value: string | undefined): Pair => {
    if (isOriginal(key, value)) return [PRESERVED_PREFIX + key, value];
    return apply(backward, key, value) ?? [key, value];
  };
  const rewrite = (dir: Direction, key: string, value?: string): Pair =>
    dir === 'rename' ? rename(key, value) : restore(key, value);
  return { rewrite, rewriteKey: (dir, key) => rewrite(dir, key)[0], isOriginal };
}
