import { describe, expect, it } from '@jest/globals';
import { s, type AnySchema, type Infer } from './dsl.ts';
import { QUANTITY_PATTERN, toOpenApi, type JsonSchemaProps } from './openapi.ts';

describe('toOpenApi', () => {
  it.each<[string, AnySchema, JsonSchemaProps]>([
    ['string', s.string(), { type: 'string' }],
    ['date-time', s.dateTime(), { type: 'string', format: 'date-time' }],
    ['pattern', s.string({ pattern: '^a+$' }), { type: 'string', pattern: '^a+$' }],
    ['enum', s.enum(['A', 'B']), { type: 'string', enum: ['A', 'B'] }],
    ['int', s.int(), { type: 'integer' }],
    ['int64', s.int('int64'), { type: 'integer', format: 'int64' }],
    ['number', s.number(), { type: 'number' }],
    ['bool', s.bool(), { type: 'boolean' }],
    [
      'quantity',
      s.quantity(),
      {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        'x-kubernetes-int-or-string': true,
        pattern: QUANTITY_PATTERN,
      },
    ],
    [
      'int-or-string',
      s.intOrString(),
      { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
    ],
    ['array', s.array(s.int()), { type: 'array', items: { type: 'integer' } }],
    [
      'atomic list',
      s.array(s.string(), { listType: 'atomic' }),
      { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    ],
    [
      'map list',
      s.array(s.object({ name: s.string().required() }), { listType: 'map', listMapKeys: ['name'] }),
      {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
    ],
    ['map', s.map(s.string()), { type: 'object', additionalProperties: { type: 'string' } }],
    ['empty object', s.empty(), { type: 'object' }],
    ['preserve', s.preserve(), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
    ['nullable', s.dateTime().nullable(), { type: 'string', format: 'date-time', nullable: true }],
    [
      'default',
      s.enum(['On', 'Off']).default('Off'),
      { type: 'string', enum: ['On', 'Off'], default: 'Off' },
    ],
    ['description', s.bool().describe('a switch'), { type: 'boolean', description: 'a switch' }],
    [
      'object with sorted properties and required in declaration order',
      s.object({ zeta: s.string().required(), alpha: s.int(), mid: s.bool().required() }),
      {
        type: 'object',
        properties: { alpha: { type: 'integer' }, mid: { type: 'boolean' }, zeta: { type: 'string' } },
        required: ['zeta', 'mid'],
      },
    ],
    [
      'partly typed object keeps unknown fields',
      s.object({ known: s.int() }, { preserveUnknown: true }),
      {
        type: 'object',
        properties: { known: { type: 'integer' } },
        'x-kubernetes-preserve-unknown-fields': true,
      },
    ],
  ])('%s', (_name, schema, expected) => {
    expect(toOpenApi(schema)).toEqual(expected);
  });

  it('emits properties sorted by name, whatever the declaration order', () => {
    const out = toOpenApi(s.object({ b: s.int(), c: s.int(), a: s.int() }));
    expect(Object.keys(out.properties ?? {})).toEqual(['a', 'b', 'c']);
  });

  it('leaves the schema it was derived from unchanged by required() and nullable()', () => {
    const base = s.string();
    base.required();
    base.nullable();
    expect(base.isRequired).toBe(false);
    expect(toOpenApi(base)).toEqual({ type: 'string' });
  });
});

describe('Infer', () => {
  const sample = s.object({
    name: s.string().required(),
    count: s.int(),
    phase: s.enum(['Up', 'Down']),
    when: s.dateTime().nullable(),
    tags: s.array(s.string()),
    labels: s.map(s.string()),
    size: s.quantity(),
    nested: s.object({ flag: s.bool().required() }),
  });
  type Sample = Infer<typeof sample>;

  it('makes required fields mandatory and the others optional, with the value types of the schema', () => {
    const full: Sample = {
      name: 'a',
      count: 1,
      phase: 'Up',
      when: null,
      tags: ['x'],
      labels: { k: 'v' },
      size: '1Gi',
      nested: { flag: true },
    };
    const minimal: Sample = { name: 'b' };
    // @ts-expect-error name is required
    const missing: Sample = { count: 1 };
    // @ts-expect-error phase is one of the enum values
    const badEnum: Sample = { name: 'c', phase: 'Sideways' };
    // @ts-expect-error a quantity is a string or a number, not an object
    const badQuantity: Sample = { name: 'd', size: { value: 1 } };
    // @ts-expect-error nested.flag is required
    const badNested: Sample = { name: 'e', nested: {} };
    expect([full, minimal, missing, badEnum, badQuantity, badNested].map((v) => v.name)).toEqual([
      'a',
      'b',
      undefined,
      'c',
      'd',
      'e',
    ]);
    expect(toOpenApi(sample).required).toEqual(['name']);
  });

  it('keeps the enum values at run time', () => {
    expect(s.enum(['Up', 'Down']).values).toEqual(['Up', 'Down']);
  });
});
