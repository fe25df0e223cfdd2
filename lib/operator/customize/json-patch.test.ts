import { describe, expect, it } from '@jest/globals';
import { applyJsonPatch } from './json-patch.ts';

describe('applyJsonPatch: the examples of RFC 6902 appendix A', () => {
  it.each([
    [
      'A.1 adding an object member',
      { foo: 'bar' },
      [{ op: 'add', path: '/baz', value: 'qux' }],
      { baz: 'qux', foo: 'bar' },
    ],
    [
      'A.2 adding an array element',
      { foo: ['bar', 'baz'] },
      [{ op: 'add', path: '/foo/1', value: 'qux' }],
      { foo: ['bar', 'qux', 'baz'] },
    ],
    [
      'A.3 removing an object member',
      { baz: 'qux', foo: 'bar' },
      [{ op: 'remove', path: '/baz' }],
      { foo: 'bar' },
    ],
    [
      'A.4 removing an array element',
      { foo: ['bar', 'qux', 'baz'] },
      [{ op: 'remove', path: '/foo/1' }],
      { foo: ['bar', 'baz'] },
    ],
    [
      'A.5 replacing a value',
      { baz: 'qux', foo: 'bar' },
      [{ op: 'replace', path: '/baz', value: 'boo' }],
      { baz: 'boo', foo: 'bar' },
    ],
    [
      'A.6 moving a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    [
      'A.7 moving an array element',
      { foo: ['all', 'grass', 'cows', 'eat'] },
      [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] },
    ],
    [
      'A.8 testing a value: success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    [
      'A.10 adding a nested member object',
      { foo: 'bar' },
      [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      { foo: 'bar', child: { grandchild: {} } },
    ],
    [
      'A.11 ignoring unrecognized elements',
      { foo: 'bar' },
      [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
      { foo: 'bar', baz: 'qux' },
    ],
    [
      'A.14 ~ escape ordering',
      { '/': 9, '~1': 10 },
      [{ op: 'test', path: '/~01', value: 10 }],
      { '/': 9, '~1': 10 },
    ],
    [
      'A.16 adding an array value',
      { foo: ['bar'] },
      [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
      { foo: ['bar', ['abc', 'def']] },
    ],
  ])('%s', (_name, doc, ops, expected) => {
    expect(applyJsonPatch(doc, ops)).toEqual(expected);
  });

  it.each([
    [
      'A.9 testing a value: error',
      { baz: 'qux' },
      [{ op: 'test', path: '/baz', value: 'bar' }],
      'operation 0 (test /baz): test failed',
    ],
    [
      'A.12 adding to a nonexistent target',
      { foo: 'bar' },
      [{ op: 'add', path: '/baz/bat', value: 'qux' }],
      'operation 0 (add /baz/bat): path /baz does not exist',
    ],
    [
      'A.15 comparing strings and numbers',
      { '/': 9, '~1': 10 },
      [{ op: 'test', path: '/~01', value: '10' }],
      'operation 0 (test /~01): test failed',
    ],
  ])('%s', (_name, doc, ops, message) => {
    expect(() => applyJsonPatch(doc, ops)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CUSTOMIZE', message }),
    );
  });
});

describe('applyJsonPatch: as evanphx/json-patch, which KubeVirt uses', () => {
  const doc = { spec: { replicas: 2, containers: [{ name: 'a' }, { name: 'b' }] } };

  it.each([
    [
      'replace of an absent member adds it (Deckhouse replaces nodeSelector and hostNetwork so)',
      [{ op: 'replace', path: '/spec/hostNetwork', value: true }],
      { spec: { ...doc.spec, hostNetwork: true } },
    ],
    [
      'a negative index counts from the end',
      [{ op: 'replace', path: '/spec/containers/-1/name', value: 'z' }],
      { spec: { ...doc.spec, containers: [{ name: 'a' }, { name: 'z' }] } },
    ],
    [
      'add at -1 appends',
      [{ op: 'add', path: '/spec/containers/-1', value: { name: 'c' } }],
      { spec: { ...doc.spec, containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
    ],
    [
      'add at the length appends',
      [{ op: 'add', path: '/spec/containers/2', value: { name: 'c' } }],
      { spec: { ...doc.spec, containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
    ],
    [
      'copy takes a copy, operations apply in order',
      [
        { op: 'copy', from: '/spec/containers/0', path: '/spec/containers/-' },
        { op: 'replace', path: '/spec/containers/2/name', value: 'c' },
      ],
      { spec: { ...doc.spec, containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
    ],
    ['replace of the root', [{ op: 'replace', path: '', value: { x: 1 } }], { x: 1 }],
  ])('%s', (_name, ops, expected) => {
    expect(applyJsonPatch(doc, ops)).toEqual(expected);
  });

  it.each([
    [
      [{ op: 'replace', path: '/spec/containers/3', value: {} }],
      'operation 0 (replace /spec/containers/3): path /spec/containers/3 does not exist',
    ],
    [
      [{ op: 'add', path: '/spec/containers/3', value: {} }],
      'operation 0 (add /spec/containers/3): index 3 is out of range of /spec/containers (length 2)',
    ],
    [
      [{ op: 'remove', path: '/spec/nope' }],
      'operation 0 (remove /spec/nope): path /spec/nope does not exist',
    ],
    [
      [{ op: 'replace', path: '/spec/replicas/x', value: 1 }],
      'operation 0 (replace /spec/replicas/x): path /spec/replicas/x does not exist',
    ],
    [
      [
        { op: 'test', path: '/spec/replicas', value: 2 },
        { op: 'add', path: '/spec/containers/x', value: 1 },
      ],
      'operation 1 (add /spec/containers/x): index x is out of range of /spec/containers (length 2)',
    ],
    [
      [{ op: 'move', from: '/spec', path: '/spec/x' }],
      'operation 0 (move /spec/x): /spec cannot move into itself',
    ],
    [[{ op: 'add', path: 'spec', value: 1 }], 'operation 0 (add spec): "spec" is not a JSON pointer'],
    [[{ op: 'add', path: '/x' }], 'operation 0 (add /x): no "value"'],
    [[{ op: 'copy', path: '/x' }], 'operation 0 (copy /x): no "from"'],
    [[{ op: 'merge', path: '/x' }], 'operation 0 (merge /x): unknown op "merge"'],
    [['add'], 'operation 0 is not an object'],
    [{ op: 'add' }, 'a JSON patch is an array of operations'],
  ])('refuses %j: %s', (ops, message) => {
    expect(() => applyJsonPatch(doc, ops)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CUSTOMIZE', message }),
    );
  });

  it('leaves its input alone and shares nothing with it', () => {
    const before = structuredClone(doc);
    const value = { name: 'c' };
    const out = applyJsonPatch(doc, [{ op: 'add', path: '/spec/containers/-', value }]);
    value.name = 'changed';
    expect(doc).toEqual(before);
    expect(out).toEqual({ spec: { ...doc.spec, containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } });
  });
});
