/**
 * Emits the structural OpenAPI v3 schema (apiextensions.k8s.io/v1 JSONSchemaProps) of a schema node: what a
 * CRD's `openAPIV3Schema` holds. Properties come out sorted by name so the generated YAML is stable.
 */
import type { AnySchema } from './dsl.ts';
import type { ArrayNode, IntNode, NodeCommon, ObjectNode, SchemaNode, StringNode } from './node.ts';

export interface JsonSchemaProps {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  description?: string;
  format?: string;
  pattern?: string;
  enum?: string[];
  minimum?: number;
  nullable?: boolean;
  default?: unknown;
  items?: JsonSchemaProps;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps;
  required?: string[];
  anyOf?: JsonSchemaProps[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

/** resource.Quantity's serialized form, as the API server's own types declare it. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const INT_OR_STRING: JsonSchemaProps = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

function common(node: NodeCommon): JsonSchemaProps {
  return {
    ...(node.description !== undefined && { description: node.description }),
    ...(node.nullable === true && { nullable: true }),
    ...(node.default !== undefined && { default: node.default }),
  };
}

function objectProps(node: ObjectNode): JsonSchemaProps {
  const names = Object.keys(node.properties).sort();
  const properties: Record<string, JsonSchemaProps> = {};
  for (const name of names) {
    const child = node.properties[name];
    if (child !== undefined) properties[name] = toOpenApiNode(child);
  }
  return {
    type: 'object',
    ...(names.length > 0 && { properties }),
    ...(node.required.length > 0 && { required: [...node.required] }),
    ...(node.preserveUnknown === true && { 'x-kubernetes-preserve-unknown-fields': true }),
  };
}

function arrayProps(node: ArrayNode): JsonSchemaProps {
  return {
    type: 'array',
    items: toOpenApiNode(node.items),
    ...(node.listType !== undefined && { 'x-kubernetes-list-type': node.listType }),
    ...(node.listMapKeys !== undefined && { 'x-kubernetes-list-map-keys': [...node.listMapKeys] }),
  };
}

function stringProps(node: StringNode): JsonSchemaProps {
  return {
    type: 'string',
    ...(node.format !== undefined && { format: node.format }),
    ...(node.pattern !== undefined && { pattern: node.pattern }),
    ...(node.enum !== undefined && { enum: [...node.enum] }),
  };
}

function intProps(node: IntNode): JsonSchemaProps {
  return {
    type: 'integer',
    ...(node.format !== undefined && { format: node.format }),
    ...(node.minimum !== undefined && { minimum: node.minimum }),
  };
}

function shapeOf(node: SchemaNode): JsonSchemaProps {
  switch (node.kind) {
    case 'string':
      return stringProps(node);
    case 'int':
      return intProps(node);
    case 'number':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'quantity':
      return { ...INT_OR_STRING, pattern: QUANTITY_PATTERN };
    case 'intOrString':
      return { ...INT_OR_STRING };
    case 'array':
      return arrayProps(node);
    case 'map':
      return { type: 'object', additionalProperties: toOpenApiNode(node.values) };
    case 'object':
      return objectProps(node);
    case 'preserve':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
}

function toOpenApiNode(node: SchemaNode): JsonSchemaProps {
  return { ...common(node), ...shapeOf(node) };
}

export function toOpenApi(schema: AnySchema): JsonSchemaProps {
  return toOpenApiNode(schema.node);
}
