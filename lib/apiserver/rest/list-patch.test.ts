import { describe, expect, it } from '@jest/globals';
import { listsPatch, type ListChange } from './list-patch.ts';
import type { JsonPatchOp } from './patch-plan.ts';

describe('listsPatch', () => {
  it.each<[string, ListChange[], JsonPatchOp[]]>([
    [
      'an absent list: test null, then add',
      [{ path: '/a', old: undefined, next: [1] }],
      [
        { op: 'test', path: '/a', value: null },
        { op: 'add', path: '/a', value: [1] },
      ],
    ],
    [
      'an empty list is added, a list with items replaced; the tests come first',
      [
        { path: '/a', old: [], next: [1] },
        { path: '/b', old: [2], next: [] },
      ],
      [
        { op: 'test', path: '/a', value: [] },
        { op: 'test', path: '/b', value: [2] },
        { op: 'add', path: '/a', value: [1] },
        { op: 'replace', path: '/b', value: [] },
      ],
    ],
  ])('%s', (_name, changes, want) => {
    expect(listsPatch(changes)).toEqual(want);
  });
});
