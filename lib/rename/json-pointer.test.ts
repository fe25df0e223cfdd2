import { describe, expect, it } from '@jest/globals';
import { formatPointer, isIndexSegment, parsePointer } from './json-pointer.ts';

describe('JSON pointers', () => {
  it.each([
    ['', []],
    ['/metadata/labels', ['metadata', 'labels']],
    ['/metadata/labels/kubevirt.io~1vm', ['metadata', 'labels', 'kubevirt.io/vm']],
    ['/a~0b/c~01', ['a~b', 'c~1']],
    ['/metadata/finalizers/-', ['metadata', 'finalizers', '-']],
    ['/', ['']],
  ])('%j ↔ %j', (pointer, segments) => {
    expect(parsePointer(pointer)).toEqual(segments);
    expect(formatPointer(segments)).toBe(pointer);
  });

  it('refuses a pointer without a leading slash', () => {
    expect(parsePointer('metadata')).toBeUndefined();
  });

  it.each([
    ['0', true],
    ['12', true],
    ['-', true],
    ['01', false],
    ['kubevirt.io', false],
  ])('%s is an index segment: %s', (seg, expected) => {
    expect(isIndexSegment(seg)).toBe(expected);
  });
});
