/**
 * One field broken in a value that fits its schema: brokenFrom(node, value) draws a copy where exactly one thing
 * is wrong for the schema (a wrong type, an integer out of range, a bad quantity, a value outside an enum, null
 * in an array, a required field taken away) and says where, in validateAgainstSchema's path notation, so a test
 * can check that the value is refused there. Nulls are never put in objects: the API server prunes those, they
 * are not an error.
 */
import fc from 'fast-check';
import { childPath, indexPath, keyPath } from '../../field-error.ts';
import type { ArrayNode, IntNode, ObjectNode, QuantityNode, SchemaNode, StringNode } from '../node.ts';
import { isPlainObject } from '../validate.ts';

export interface Broken {
  readonly value: unknown;
  /** The field that is wrong ('' never: the root is left whole). */
  readonly path: string;
  /** What was done, for the test's report ("wrong type: the number 7"). */
  readonly how: string;
}

type Key = string | number;

/** A change at one place: the keys down to it and what it becomes (undefined: removed). */
interface Change {
  readonly keys: readonly Key[];
  readonly path: string;
  readonly replacement: unknown;
  readonly how: string;
}

const WRONG_TYPES: Readonly<Record<string, unknown>> = {
  string: 'a string',
  number: 7,
  boolean: true,
  object: { x: 1 },
  array: [1],
};

function wrongTypes(except: readonly string[]): [unknown, string][] {
  return Object.entries(WRONG_TYPES)
    .filter(([kind]) => !except.includes(kind))
    .map(([kind, v]) => [v, `wrong type: ${kind}`]);
}

function stringBreaks(node: StringNode): [unknown, string][] {
  const out = wrongTypes(['string']);
  if (node.enum !== undefined) out.push(['not-one-of-them', 'outside the enum']);
  if (node.format === 'date-time') out.push(['yesterday', 'not a date-time']);
  return out;
}

function intBreaks(node: IntNode): [unknown, string][] {
  const out = wrongTypes(['number']);
  out.push(['four', 'wrong type: a word'], [1.5, 'a fraction']);
  if (node.unsigned === true) out.push([-1, 'negative']);
  if (node.format === 'int32') out.push([node.unsigned === true ? 2 ** 32 : 2 ** 31, 'beyond 32 bits']);
  else out.push([2 ** 60, 'beyond 2^53']);
  return out;
}

const BAD_QUANTITIES = ['lots', '1KiB', '1e', '--1', ' 1', '1 ', '1.5.5', '.', '1i', '0x10', ''];

function quantityBreaks(node: QuantityNode): [unknown, string][] {
  const out: [unknown, string][] = BAD_QUANTITIES.map((q) => [q, `bad quantity ${JSON.stringify(q)}`]);
  out.push([1.5, 'a fractional number'], [true, 'wrong type: boolean'], [{ x: 1 }, 'wrong type: object']);
  if (node.nonNegative === true) out.push(['-1', 'negative amount']);
  return out;
}

function breaksOf(node: SchemaNode): [unknown, string][] {
  switch (node.kind) {
    case 'string':
      return stringBreaks(node);
    case 'int':
      return intBreaks(node);
    case 'number':
      return wrongTypes(['number']);
    case 'bool':
      return wrongTypes(['boolean']);
    case 'quantity':
      return quantityBreaks(node);
    case 'intOrString':
      return [...wrongTypes(['string', 'number']), [0.5, 'a fraction']];
    case 'array':
      return wrongTypes(['array']);
    case 'map':
    case 'object':
    case 'preserve':
      return wrongTypes(['object']);
  }
}

interface Walk {
  readonly exclude: (path: string) => boolean;
  readonly out: Change[];
}

/** Where a value sits: the keys down to it and its path. */
interface At {
  readonly keys: readonly Key[];
  readonly path: string;
}

function objectChanges(node: ObjectNode, value: Readonly<Record<string, unknown>>, at: At, w: Walk): void {
  for (const name of node.required) {
    const path = childPath(at.path, name);
    if (value[name] !== undefined && !w.exclude(path)) {
      w.out.push({ keys: [...at.keys, name], path, replacement: undefined, how: 'required field removed' });
    }
  }
  for (const [name, child] of Object.entries(node.properties)) {
    const item = value[name];
    if (item !== undefined)
      walk(child, item, { keys: [...at.keys, name], path: childPath(at.path, name) }, w);
  }
}

function arrayChanges(node: ArrayNode, value: readonly unknown[], at: At, w: Walk): void {
  if (node.items.nullable !== true) {
    const path = indexPath(at.path, value.length);
    w.out.push({ keys: [...at.keys, value.length], path, replacement: null, how: 'null in an array' });
  }
  value.forEach((item, i) => {
    walk(node.items, item, { keys: [...at.keys, i], path: indexPath(at.path, i) }, w);
  });
}

function containerChanges(node: SchemaNode, value: unknown, at: At, w: Walk): void {
  if (node.kind === 'object' && isPlainObject(value)) objectChanges(node, value, at, w);
  else if (node.kind === 'array' && Array.isArray(value)) arrayChanges(node, value, at, w);
  else if (node.kind === 'map' && isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      walk(node.values, item, { keys: [...at.keys, key], path: keyPath(at.path, key) }, w);
    }
  }
}

function walk(node: SchemaNode, value: unknown, at: At, w: Walk): void {
  if (at.path !== '' && !w.exclude(at.path)) {
    for (const [replacement, how] of breaksOf(node)) w.out.push({ ...at, replacement, how });
  }
  containerChanges(node, value, at, w);
}

function applied(value: unknown, change: Change): unknown {
  const copy = structuredClone(value);
  let parent = copy as Record<Key, unknown>;
  for (const key of change.keys.slice(0, -1)) parent = parent[key] as Record<Key, unknown>;
  const last = change.keys.at(-1) ?? '';
  if (change.replacement === undefined) Reflect.deleteProperty(parent, last);
  else parent[last] = structuredClone(change.replacement);
  return copy;
}

function changesOf(node: SchemaNode, value: unknown, exclude: (path: string) => boolean): Change[] {
  const w: Walk = { exclude, out: [] };
  walk(node, value, { keys: [], path: '' }, w);
  return w.out;
}

function brokenBy(value: unknown, c: Change): Broken {
  return { value: applied(value, c), path: c.path, how: c.how };
}

const NOTHING: (path: string) => boolean = () => false;

/** Every single-field break of `value` (one that fits `node`), fields under `exclude` left alone. */
export function brokenVariants(
  node: SchemaNode,
  value: unknown,
  exclude: (path: string) => boolean = NOTHING,
): Broken[] {
  return changesOf(node, value, exclude).map((c) => brokenBy(value, c));
}

/** One of brokenVariants, drawn (the copy is made only for the one drawn). */
export function brokenFrom(
  node: SchemaNode,
  value: unknown,
  exclude: (path: string) => boolean = NOTHING,
): fc.Arbitrary<Broken> {
  const changes = changesOf(node, value, exclude);
  if (changes.length === 0) throw new Error('nothing to break in this value');
  return fc.constantFrom(...changes).map((c) => brokenBy(value, c));
}
