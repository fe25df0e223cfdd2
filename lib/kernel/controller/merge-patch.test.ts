import { describe, expect, it } from '@jest/globals';
import { deepEqual, mergeDiff } from './merge-patch.ts';
import { scopedMergePatch } from './merge-patch.ts';

describe('mergeDiff', () => {
  it.each<[string, unknown, unknown, unknown]>([
    ['equal objects, key order ignored', { a: 1, b: { c: 2 } }, { b: { c: 2 }, a: 1 }, undefined],
    ['changed scalar', { a: 1 }, { a: 2 }, { a: 2 }],
    ['added key', { a: 1 }, { a: 1, b: 'x' }, { b: 'x' }],
    ['removed key becomes null', { a: 1, b: 2 }, { a: 1 }, { b: null }],
    ['nested change only', { s: { x: 1, y: 2 } }, { s: { x: 1, y: 3 } }, { s: { y: 3 } }],
    ['arrays replaced whole', { l: [1, 2] }, { l: [1, 2, 3] }, { l: [1, 2, 3] }],
    ['equal arrays', { l: [{ a: 1 }] }, { l: [{ a: 1 }] }, undefined],
    ['object from nothing', undefined, { a: 1 }, { a: 1 }],
    ['undefined values count as absent', { a: 1, b: undefined }, { a: 1 }, undefined],
  ])('%s', (_n, from, to, want) => {
    expect(mergeDiff(from, to)).toEqual(want);
  });

  it('deepEqual tells arrays from objects', () => {
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({ a: [1] }, { a: [1] })).toBe(true);
  });
});

describe('scopedMergePatch', () => {
  const old = {
    metadata: { name: 'x', resourceVersion: '7', labels: { a: '1' }, finalizers: ['f'] },
    spec: { keep: true },
    status: { phase: 'Pending', other: 1 },
  };

  it('patches only the scoped fields', () => {
    const desired = {
      ...old,
      metadata: { ...old.metadata, labels: { a: '1', b: '2' }, annotations: { x: 'y' } },
      spec: { keep: false },
      status: { phase: 'Scheduling', other: 2 },
    };
    expect(scopedMergePatch(old, desired, { metadata: ['labels'], top: { status: ['phase'] } })).toEqual({
      metadata: { labels: { b: '2' } },
      status: { phase: 'Scheduling' },
    });
  });

  it('nothing in scope changed: no patch', () => {
    const desired = { ...old, spec: { keep: false } };
    expect(
      scopedMergePatch(old, desired, { metadata: ['labels', 'finalizers'], top: { status: 'all' } }),
    ).toBeUndefined();
  });
});
