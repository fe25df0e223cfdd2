/**
 * What the API server does with nulls before it validates a custom resource (apiextensions-apiserver
 * schema/defaulting PruneNonNullableNullsWithoutDefaults): a null field of an object or a null map value whose
 * node is not nullable is removed, or replaced by the node's default when it has one. Array items are left
 * alone (a null item stays an error), as are fields the schema does not know. Pure: returns a copy.
 */
import type { SchemaNode } from './node.ts';
import { isPlainObject } from './validate.ts';

function fieldNode(node: SchemaNode | undefined, name: string): SchemaNode | undefined {
  if (node?.kind === 'object') return node.properties[name];
  return node?.kind === 'map' ? node.values : undefined;
}

export function pruneNulls(node: SchemaNode | undefined, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = node?.kind === 'array' ? node.items : undefined;
    return value.map((item: unknown) => pruneNulls(items, item));
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const child = fieldNode(node, name);
    if (item === null && child !== undefined && child.nullable !== true) {
      if (child.default !== undefined) out[name] = structuredClone(child.default);
      continue;
    }
    out[name] = pruneNulls(child, item);
  }
  return out;
}
