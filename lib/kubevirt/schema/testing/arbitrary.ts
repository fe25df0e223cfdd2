/**
 * fast-check arbitraries from schema nodes: arbitraryFor(node) draws values that validateAgainstSchema accepts.
 * A caller narrows them to what it can use: `include` says which optional fields are drawn at all (by path,
 * array items as `[]`, map values as `{}`: `spec.domain.devices.disks[].bootOrder`), `overrides` gives the
 * arbitrary of a path outright (a realistic memory size, a name other fields refer to).
 */
import fc from 'fast-check';
import type {
  ArrayNode,
  IntNode,
  MapNode,
  ObjectNode,
  QuantityNode,
  SchemaNode,
  StringNode,
} from '../node.ts';

export interface ArbitraryOptions {
  /** Whether an optional field at this path is drawn (default: every one may be). */
  readonly include?: (path: string) => boolean;
  /** The arbitrary of a path, used instead of the node's. */
  readonly overrides?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** Most items of an array and entries of a map (default 3). */
  readonly maxItems?: number;
}

/** A path's child, in the notation of ArbitraryOptions. */
function genPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

const NAME = /^[a-z][a-z0-9-]{0,10}[a-z0-9]$/;
const KEY = /^[a-z][a-z0-9]{0,7}$/;

function stringArbitrary(node: StringNode): fc.Arbitrary<string> {
  if (node.enum !== undefined && node.enum.length > 0) return fc.constantFrom(...node.enum);
  if (node.format === 'date-time') {
    const date = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z') });
    return date.filter((d) => !Number.isNaN(d.getTime())).map((d) => `${d.toISOString().slice(0, 19)}Z`);
  }
  if (node.pattern !== undefined) return fc.stringMatching(new RegExp(node.pattern));
  return fc.stringMatching(NAME);
}

function intArbitrary(node: IntNode): fc.Arbitrary<number> {
  const unsigned = node.unsigned === true;
  const lowest = node.minimum ?? (unsigned ? 0 : -1000);
  if (node.format === 'int32') {
    return fc.integer({ min: Math.max(lowest, -(2 ** 31)), max: unsigned ? 2 ** 32 - 1 : 2 ** 31 - 1 });
  }
  return fc.integer({ min: lowest, max: Number.MAX_SAFE_INTEGER });
}

const SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'm', 'k', 'M', 'G', 'e3'] as const;

function quantityArbitrary(node: QuantityNode): fc.Arbitrary<string | number> {
  const sign = node.nonNegative === true ? fc.constant('') : fc.constantFrom('', '+', '-');
  const text = fc
    .tuple(sign, fc.integer({ min: 0, max: 4096 }), fc.constantFrom(...SUFFIXES))
    .map(([s, n, suffix]) => `${s}${String(n)}${suffix}`);
  return fc.oneof(text, fc.integer({ min: 0, max: 2 ** 40 }));
}

function arrayArbitrary(node: ArrayNode, opts: ArbitraryOptions, path: string): fc.Arbitrary<unknown[]> {
  return fc.array(arbitraryFor(node.items, opts, `${path}[]`), { maxLength: opts.maxItems ?? 3 });
}

function mapArbitrary(node: MapNode, opts: ArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const values = arbitraryFor(node.values, opts, `${path}{}`);
  return fc.dictionary(fc.stringMatching(KEY), values, { maxKeys: opts.maxItems ?? 3 });
}

function objectArbitrary(node: ObjectNode, opts: ArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  const include = opts.include ?? ((): boolean => true);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, child] of Object.entries(node.properties)) {
    const at = genPath(path, name);
    if (node.required.includes(name) || include(at)) model[name] = arbitraryFor(child, opts, at);
  }
  const requiredKeys = node.required.filter((name) => name in model);
  return fc.record(model, { requiredKeys });
}

function nodeArbitrary(node: SchemaNode, opts: ArbitraryOptions, path: string): fc.Arbitrary<unknown> {
  switch (node.kind) {
    case 'string':
      return stringArbitrary(node);
    case 'int':
      return intArbitrary(node);
    case 'number':
      return fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
    case 'bool':
      return fc.boolean();
    case 'quantity':
      return quantityArbitrary(node);
    case 'intOrString':
      return fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.stringMatching(NAME));
    case 'array':
      return arrayArbitrary(node, opts, path);
    case 'map':
      return mapArbitrary(node, opts, path);
    case 'object':
      return objectArbitrary(node, opts, path);
    case 'preserve':
      return fc.dictionary(fc.stringMatching(KEY), fc.stringMatching(NAME), { maxKeys: 2 });
  }
}

/** Values of `node` that validateAgainstSchema accepts (null too, now and then, where the node allows it). */
export function arbitraryFor(
  node: SchemaNode,
  opts: ArbitraryOptions = {},
  path = '',
): fc.Arbitrary<unknown> {
  const override = opts.overrides?.[path];
  const arb = override ?? nodeArbitrary(node, opts, path);
  return node.nullable === true && override === undefined ? fc.option(arb, { nil: null, freq: 5 }) : arb;
}
