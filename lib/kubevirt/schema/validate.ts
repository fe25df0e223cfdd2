/**
 * A value checked against a schema node, the way the API server checks a custom resource against its structural
 * schema and Go's decoding then refuses what does not fit the type (kube-openapi's validation of
 * apiextensions-apiserver; KubeVirt's uint32 fields): types, required fields, enums, patterns, date-times, integer
 * ranges (int32, uint32, unsigned, what a number holds exactly), int-or-string and quantities, arrays and maps,
 * each problem reported with its field path. Unknown fields are allowed, as the API server would have pruned
 * them. null is a value only where the node is nullable; the API server's removal of other nulls from objects
 * happens before (prune-nulls.ts). Pure.
 */
import { childPath, indexPath, keyPath, type FieldError } from '../field-error.ts';
import { isNegativeQuantity, quantityProblem } from '../quantity.ts';
import type {
  ArrayNode,
  IntNode,
  MapNode,
  ObjectNode,
  QuantityNode,
  SchemaNode,
  StringNode,
} from './node.ts';

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;
const UINT32_MAX = 2 ** 32 - 1;
const SHOWN_CHARS = 32;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

type Out = FieldError[];

const EXPECTED: Readonly<Record<SchemaNode['kind'], string>> = {
  string: 'a string',
  int: 'an integer',
  number: 'a number',
  bool: 'a boolean',
  quantity: 'an integer or a quantity string',
  intOrString: 'an integer or a string',
  array: 'an array',
  map: 'an object',
  object: 'an object',
  preserve: 'an object',
};

/** Nodes whose values are never secret: a string given there is shown (shortened) in the message. */
const SHOWS_STRINGS: ReadonlySet<SchemaNode['kind']> = new Set(['int', 'number', 'bool']);

function shownString(value: string): string {
  return JSON.stringify(value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value);
}

function described(value: unknown, showStrings: boolean): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${String(value)}`;
  if (typeof value === 'string') return showStrings ? `the string ${shownString(value)}` : 'a string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function wrongType(node: SchemaNode, value: unknown): string {
  return `expected ${EXPECTED[node.kind]}, got ${described(value, SHOWS_STRINGS.has(node.kind))}`;
}

export function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringProblem(node: StringNode, value: string): string | undefined {
  if (node.enum !== undefined && !node.enum.includes(value)) {
    const supported = node.enum.map((v) => JSON.stringify(v)).join(', ');
    return `unsupported value ${shownString(value)}, supported values: ${supported}`;
  }
  if (node.pattern !== undefined && !new RegExp(node.pattern).test(value)) {
    return `must match the pattern ${node.pattern}`;
  }
  if (node.format === 'date-time' && !RFC3339.test(value)) {
    return `expected an RFC 3339 date-time, got the string ${shownString(value)}`;
  }
  return undefined;
}

function intRange(node: IntNode): { min: number; max: number; name?: string } {
  if (node.format === 'int32') {
    return node.unsigned === true ? { min: 0, max: UINT32_MAX, name: 'uint32' } : { ...INT32, name: 'int32' };
  }
  return { min: node.unsigned === true ? 0 : -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
}

function intProblem(node: IntNode, value: number): string | undefined {
  const got = `got ${String(value)}`;
  if (node.unsigned === true && value < 0) return `must be greater than or equal to 0, ${got}`;
  if (node.minimum !== undefined && value < node.minimum) {
    return `must be greater than or equal to ${String(node.minimum)}, ${got}`;
  }
  const { min, max, name } = intRange(node);
  if (name === undefined) {
    return value < min || value > max
      ? `must be between ${String(min)} and ${String(max)}, ${got}`
      : undefined;
  }
  if (value > max) return `must be at most ${String(max)} (${name}), ${got}`;
  if (value < min) return `must be at least ${String(min)} (${name}), ${got}`;
  return undefined;
}

function quantityNodeProblem(node: QuantityNode, value: unknown): string | undefined {
  const problem = quantityProblem(value);
  if (problem !== undefined || node.nonNegative !== true) return problem;
  const q = value as string | number;
  if (!isNegativeQuantity(q)) return undefined;
  return `quantity ${typeof q === 'string' ? shownString(q) : String(q)} must be greater than or equal to 0`;
}

type Problem<N extends SchemaNode> = (node: N, value: unknown) => string | undefined;

const stringCheck: Problem<StringNode> = (node, value) =>
  typeof value === 'string' ? stringProblem(node, value) : wrongType(node, value);
const intCheck: Problem<IntNode> = (node, value) =>
  typeof value === 'number' && Number.isInteger(value) ? intProblem(node, value) : wrongType(node, value);
const numberCheck: Problem<SchemaNode> = (node, value) =>
  typeof value === 'number' && Number.isFinite(value) ? undefined : wrongType(node, value);
const boolCheck: Problem<SchemaNode> = (node, value) =>
  typeof value === 'boolean' ? undefined : wrongType(node, value);
const intOrStringCheck: Problem<SchemaNode> = (node, value) =>
  typeof value === 'string' || Number.isInteger(value) ? undefined : wrongType(node, value);
const preserveCheck: Problem<SchemaNode> = (node, value) =>
  isPlainObject(value) ? undefined : wrongType(node, value);

function checkArray(node: ArrayNode, value: unknown, path: string, out: Out): void {
  if (!Array.isArray(value)) {
    out.push({ field: path, detail: wrongType(node, value) });
    return;
  }
  value.forEach((item, i) => {
    check(node.items, item, indexPath(path, i), out);
  });
}

function checkMap(node: MapNode, value: unknown, path: string, out: Out): void {
  if (!isPlainObject(value)) {
    out.push({ field: path, detail: wrongType(node, value) });
    return;
  }
  for (const [key, item] of Object.entries(value)) check(node.values, item, keyPath(path, key), out);
}

function checkObject(node: ObjectNode, value: unknown, path: string, out: Out): void {
  if (!isPlainObject(value)) {
    out.push({ field: path, detail: wrongType(node, value) });
    return;
  }
  for (const name of node.required) {
    if (value[name] === undefined) out.push({ field: childPath(path, name), detail: 'required value' });
  }
  for (const [name, child] of Object.entries(node.properties)) {
    const item = value[name];
    if (item !== undefined) check(child, item, childPath(path, name), out);
  }
}

type Checker<N extends SchemaNode> = (node: N, value: unknown, path: string, out: Out) => void;

function scalar<N extends SchemaNode>(problem: Problem<N>): Checker<N> {
  return (node, value, path, out) => {
    const detail = problem(node, value);
    if (detail !== undefined) out.push({ field: path, detail });
  };
}

const CHECKERS: { readonly [K in SchemaNode['kind']]: Checker<Extract<SchemaNode, { kind: K }>> } = {
  string: scalar(stringCheck),
  int: scalar(intCheck),
  number: scalar(numberCheck),
  bool: scalar(boolCheck),
  quantity: scalar(quantityNodeProblem),
  intOrString: scalar(intOrStringCheck),
  array: checkArray,
  map: checkMap,
  object: checkObject,
  preserve: scalar(preserveCheck),
};

function check(node: SchemaNode, value: unknown, path: string, out: Out): void {
  if (value === null && node.nullable === true) return;
  (CHECKERS[node.kind] as Checker<SchemaNode>)(node, value, path, out);
}

/** Every problem of `value` against `node`, in schema order, each at its path under `path` ('' for the root). */
export function validateAgainstSchema(node: SchemaNode, value: unknown, path: string): FieldError[] {
  const out: Out = [];
  check(node, value, path, out);
  return out;
}
