/**
 * The data a schema is made of: one node per value, with no TypeScript typing attached. The typed builders in
 * dsl.ts produce these nodes; openapi.ts turns them into a structural OpenAPI v3 schema for a CRD.
 */

export type ListType = 'atomic' | 'set' | 'map';
export type IntFormat = 'int32' | 'int64';

export interface NodeCommon {
  readonly description?: string;
  /** null is a valid value (OpenAPI `nullable: true`); the type gets `| null`. */
  readonly nullable?: boolean;
  /** Defaulted by the API server when the parent object is present and the field is absent. */
  readonly default?: unknown;
}

export interface StringNode extends NodeCommon {
  readonly kind: 'string';
  readonly enum?: readonly string[];
  readonly format?: 'date-time' | 'byte';
  readonly pattern?: string;
}

export interface IntNode extends NodeCommon {
  readonly kind: 'int';
  /** int32: -2^31..2^31-1 (2^32-1 when unsigned); int64 or none: what a number holds exactly (±(2^53-1)). */
  readonly format?: IntFormat;
  readonly minimum?: number;
  /**
   * A Go unsigned field (uint, uint32): the CRD declares a plain integer, but decoding refuses a negative value.
   * Validation only; the OpenAPI output does not change.
   */
  readonly unsigned?: boolean;
}

interface NumberNode extends NodeCommon {
  readonly kind: 'number';
}

interface BoolNode extends NodeCommon {
  readonly kind: 'bool';
}

/** A Kubernetes resource.Quantity: an integer or a string such as "1Gi" (x-kubernetes-int-or-string). */
export interface QuantityNode extends NodeCommon {
  readonly kind: 'quantity';
  /** A resource amount: negative values are refused (validation only, as KubeVirt's webhook does). */
  readonly nonNegative?: boolean;
}

/** intstr.IntOrString without the quantity pattern (ports, percentages). */
interface IntOrStringNode extends NodeCommon {
  readonly kind: 'intOrString';
}

export interface ArrayNode extends NodeCommon {
  readonly kind: 'array';
  readonly items: SchemaNode;
  readonly listType?: ListType;
  readonly listMapKeys?: readonly string[];
}

/** An object whose keys are free (`additionalProperties`), e.g. map[string]string. */
export interface MapNode extends NodeCommon {
  readonly kind: 'map';
  readonly values: SchemaNode;
}

export interface ObjectNode extends NodeCommon {
  readonly kind: 'object';
  readonly properties: Readonly<Record<string, SchemaNode>>;
  readonly required: readonly string[];
  /**
   * Fields not listed are kept as sent instead of pruned. Used where this schema names only part of KubeVirt's
   * fields, so nothing a client writes is lost, while the fields listed are still validated.
   */
  readonly preserveUnknown?: boolean;
}

/** Any JSON object, kept as is (x-kubernetes-preserve-unknown-fields). */
interface PreserveNode extends NodeCommon {
  readonly kind: 'preserve';
}

export type SchemaNode =
  | StringNode
  | IntNode
  | NumberNode
  | BoolNode
  | QuantityNode
  | IntOrStringNode
  | ArrayNode
  | MapNode
  | ObjectNode
  | PreserveNode;
