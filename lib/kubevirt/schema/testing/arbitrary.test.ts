import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { vmiInputSchema } from '../../object-input.ts';
import { s } from '../dsl.ts';
import { validateAgainstSchema } from '../validate.ts';
import { arbitraryFor } from './arbitrary.ts';
import { brokenFrom, brokenVariants } from './broken.ts';

const SEED = 20_260_101;
const node = vmiInputSchema.node;

describe('arbitraryFor', () => {
  it('draws VMIs, every optional field included, that the schema accepts', () => {
    fc.assert(
      fc.property(arbitraryFor(node, { maxItems: 2 }), (vmi) => {
        expect(validateAgainstSchema(node, vmi, '')).toEqual([]);
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('draws only the optional fields a caller includes, and takes its overrides', () => {
    const small = s.object({ a: s.string().required(), b: s.int(), c: s.bool() }).node;
    const arb = arbitraryFor(small, { include: (p) => p === 'b', overrides: { b: fc.constant(42) } });
    for (const v of fc.sample(arb, { seed: SEED, numRuns: 50 })) {
      expect(Object.keys(v as object).every((k) => k === 'a' || k === 'b')).toBe(true);
      expect([undefined, 42]).toContain((v as { b?: number }).b);
    }
  });
});

describe('brokenFrom', () => {
  it('breaks exactly one field, which the schema then refuses at that path', () => {
    const pair = arbitraryFor(node, { maxItems: 2 }).chain((vmi) => brokenFrom(node, vmi));
    fc.assert(
      fc.property(pair, (broken) => {
        const errors = validateAgainstSchema(node, broken.value, '');
        expect({ how: broken.how, fields: errors.map((e) => e.field) }).toEqual({
          how: broken.how,
          fields: [broken.path],
        });
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it.each<[string, unknown, string[]]>([
    [
      'a small object',
      { a: 'x', list: [1] },
      [
        'a: required field removed',
        'a: wrong type: number',
        'list: wrong type: string',
        'list[1]: null in an array',
        'list[0]: wrong type: a word',
      ],
    ],
  ])('lists the breaks of %s', (_, value, some) => {
    const small = s.object({ a: s.string().required(), list: s.array(s.int()) }).node;
    const listed = brokenVariants(small, value).map((b) => `${b.path}: ${b.how}`);
    expect(listed).toEqual(expect.arrayContaining(some));
    expect(value).toEqual({ a: 'x', list: [1] });
  });
});
