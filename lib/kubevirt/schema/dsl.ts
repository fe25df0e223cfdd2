/**
 * A small schema DSL: each builder returns a Schema<T> that carries its TypeScript type T (read with Infer) and
 * the node that openapi.ts emits as structural OpenAPI v3. The API types and the CRD schemas come from the same
 * declarations, so they cannot drift apart.
 *
 *   const disk = s.object({ name: s.string().required(), bootOrder: s.int() });
 *   type Disk = Infer<typeof disk>; // { name: string; bootOrder?: number }
 */
import type {
  ArrayNode,
  IntFormat,
  ListType,
  NodeCommon,
  ObjectNode,
  QuantityNode,
  SchemaNode,
  StringNode,
} from './node.ts';

export class Schema<T, R extends boolean = false> {
  /** Type-level only: the TypeScript type of a value (never set at run time). */
  declare readonly _type: T;
  readonly node: SchemaNode;
  /** Whether the parent object lists this field in `required`. */
  readonly isRequired: R;

  constructor(node: SchemaNode, isRequired: R) {
    this.node = node;
    this.isRequired = isRequired;
  }

  required(): Schema<T, true> {
    return new Schema<T, true>(this.node, true);
  }

  nullable(): Schema<T | null, R> {
    return this.with({ nullable: true });
  }

  describe(description: string): Schema<T, R> {
    return this.with({ description });
  }

  default(value: T): Schema<T, R> {
    return this.with({ default: value });
  }

  private with(extra: NodeCommon): Schema<T, R> {
    return new Schema<T, R>({ ...this.node, ...extra }, this.isRequired);
  }
}

/** An enum of strings; `values` lists them (for constants and tests). */
export class EnumSchema<V extends string> extends Schema<V> {
  readonly values: readonly V[];
  constructor(values: readonly V[]) {
    super({ kind: 'string', enum: values }, false);
    this.values = values;
  }
}

export type AnySchema = Schema<unknown, boolean>;
export type Shape = Readonly<Record<string, AnySchema>>;

/** The TypeScript type a schema describes. */
export type Infer<S> = S extends Schema<infer T, boolean> ? T : never;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K]['isRequired'] extends true ? K : never }[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;

export type InferShape<S extends Shape> = Flatten<
  { -readonly [K in RequiredKeys<S>]: Infer<S[K]> } & { -readonly [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

/** A Kubernetes resource.Quantity as it travels in JSON: "1Gi", "500m" or a plain number. */
export type Quantity = string | number;
export type JsonObject = Record<string, unknown>;

export interface ObjectOptions {
  /** Keep fields the shape does not list (see ObjectNode.preserveUnknown). */
  readonly preserveUnknown?: boolean;
}

export interface ArrayOptions {
  readonly listType?: ListType;
  readonly listMapKeys?: readonly string[];
}

function make<T>(node: SchemaNode): Schema<T> {
  return new Schema<T, false>(node, false);
}

function objectNode(shape: Shape, opts: ObjectOptions): ObjectNode {
  const properties: Record<string, SchemaNode> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(shape)) {
    properties[name] = field.node;
    if (field.isRequired) required.push(name);
  }
  return {
    kind: 'object',
    properties,
    required,
    ...(opts.preserveUnknown === true && { preserveUnknown: true }),
  };
}

function arrayNode(items: AnySchema, opts: ArrayOptions): ArrayNode {
  return {
    kind: 'array',
    items: items.node,
    ...(opts.listType !== undefined && { listType: opts.listType }),
    ...(opts.listMapKeys !== undefined && { listMapKeys: opts.listMapKeys }),
  };
}

export const s = {
  string: (opts: Omit<StringNode, 'kind' | 'enum'> = {}): Schema<string> => make({ kind: 'string', ...opts }),
  /** RFC 3339 timestamp (metav1.Time). */
  dateTime: (): Schema<string> => make({ kind: 'string', format: 'date-time' }),
  enum: <const V extends string>(values: readonly [V, ...V[]]): EnumSchema<V> => new EnumSchema<V>(values),
  int: (format?: IntFormat): Schema<number> => make({ kind: 'int', ...(format !== undefined && { format }) }),
  /** Go uint32: an int32 in the CRD, 0..2^32-1 when decoded. */
  uint32: (): Schema<number> => make({ kind: 'int', format: 'int32', unsigned: true }),
  /** Go uint: a plain integer in the CRD, never negative when decoded. */
  uint: (): Schema<number> => make({ kind: 'int', unsigned: true }),
  number: (): Schema<number> => make({ kind: 'number' }),
  bool: (): Schema<boolean> => make({ kind: 'bool' }),
  quantity: (opts: Omit<QuantityNode, 'kind'> = {}): Schema<Quantity> => make({ kind: 'quantity', ...opts }),
  intOrString: (): Schema<number | string> => make({ kind: 'intOrString' }),
  array: <I>(items: Schema<I, boolean>, opts: ArrayOptions = {}): Schema<I[]> =>
    make(arrayNode(items as AnySchema, opts)),
  map: <V>(values: Schema<V, boolean>): Schema<Record<string, V>> =>
    make({ kind: 'map', values: values.node }),
  object: <S extends Shape>(shape: S, opts: ObjectOptions = {}): Schema<InferShape<S>> =>
    make(objectNode(shape, opts)),
  /** An object with no fields of its own, used as a marker (`bridge: {}`, `rng: {}`). */
  empty: (): Schema<Record<string, never>> => make(objectNode({}, {})),
  /** Any JSON object, kept as is; T names its shape for TypeScript only. */
  preserve: <T = JsonObject>(): Schema<T> => make({ kind: 'preserve' }),
};
