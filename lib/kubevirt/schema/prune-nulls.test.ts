import { describe, expect, it } from '@jest/globals';
import { s } from './dsl.ts';
import { pruneNulls } from './prune-nulls.ts';

const node = s.object({
  a: s.string(),
  b: s.string().nullable(),
  c: s.string().default('dflt'),
  list: s.array(s.object({ x: s.int(), y: s.int() })),
  labels: s.map(s.string()),
  nested: s.object({ deep: s.bool() }),
}).node;

describe('pruneNulls', () => {
  it.each<[string, unknown, unknown]>([
    ['drops a null field', { a: null, nested: { deep: null } }, { nested: {} }],
    ['keeps a nullable null', { b: null }, { b: null }],
    ['puts the default for a defaulted null', { c: null }, { c: 'dflt' }],
    ['drops null map values', { labels: { k: null, l: 'v' } }, { labels: { l: 'v' } }],
    [
      'keeps null array items, prunes inside items',
      { list: [null, { x: null, y: 1 }] },
      { list: [null, { y: 1 }] },
    ],
    [
      'leaves unknown fields as they are',
      { other: null, more: { x: null } },
      { other: null, more: { x: null } },
    ],
    ['leaves a scalar root', 'x', 'x'],
  ])('%s', (_, value, expected) => {
    expect(pruneNulls(node, value)).toEqual(expected);
  });

  it('does not touch its input', () => {
    const value = { a: null, nested: { deep: null } };
    pruneNulls(node, value);
    expect(value).toEqual({ a: null, nested: { deep: null } });
  });
});
