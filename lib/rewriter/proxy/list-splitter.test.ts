import { describe, expect, it } from '@jest/globals';
import { ListSplitter, ListSyntaxError, type SplitEvent } from './list-splitter.ts';

type Part = ['field', string, unknown] | ['items-start'] | ['item', unknown] | ['items-end'] | ['end'];

function parts(events: readonly SplitEvent[]): Part[] {
  return events.map((e): Part => {
    switch (e.type) {
      case 'field':
        return ['field', e.key, JSON.parse(e.raw.toString('utf8'))];
      case 'item':
        return ['item', JSON.parse(e.raw.toString('utf8'))];
      case 'items-start':
      case 'items-end':
      case 'end':
        return [e.type];
    }
  });
}

/** Feeds text in chunks of `size` bytes (0: all at once) and collects the parts. */
function split(text: string, size = 0): Part[] {
  const s = new ListSplitter();
  const bytes = Buffer.from(text, 'utf8');
  const events: SplitEvent[] = [];
  const step = size === 0 ? bytes.length : size;
  for (let i = 0; i < bytes.length; i += step) events.push(...s.push(bytes.subarray(i, i + step)));
  s.end();
  return parts(events);
}

const tricky = {
  s: 'quote " brace { } bracket [ ] backslash \\ and \\" escaped, unicode é 漢字 😀',
  nested: { a: [1, [2, { b: '}' }]], c: null, d: true, e: -1.5e3 },
};

const LIST = JSON.stringify({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '12', continue: 'x"y' },
  items: [{ metadata: { name: 'a' } }, tricky, { metadata: { name: 'c', labels: { 'k/x': '[' } } }],
});

const EXPECTED: Part[] = [
  ['field', 'kind', 'PodList'],
  ['field', 'apiVersion', 'v1'],
  ['field', 'metadata', { resourceVersion: '12', continue: 'x"y' }],
  ['items-start'],
  ['item', { metadata: { name: 'a' } }],
  ['item', tricky],
  ['item', { metadata: { name: 'c', labels: { 'k/x': '[' } } }],
  ['items-end'],
  ['end'],
];

describe('ListSplitter', () => {
  it.each([0, 1, 2, 3, 7, 64])('splits a list fed in chunks of %i bytes (0: whole)', (size) => {
    expect(split(LIST, size)).toEqual(EXPECTED);
  });

  it('splits every possible two-chunk cut of the same list', () => {
    const bytes = Buffer.from(LIST, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const s = new ListSplitter();
      const events = [...s.push(bytes.subarray(0, cut)), ...s.push(bytes.subarray(cut))];
      expect(parts(events)).toEqual(EXPECTED);
    }
  });

  it('reads pretty-printed JSON', () => {
    expect(split(JSON.stringify(JSON.parse(LIST), null, 2), 5)).toEqual(EXPECTED);
  });

  it.each<[string, string, Part[]]>([
    [
      'an empty list',
      '{"kind":"PodList","items":[]}',
      [['field', 'kind', 'PodList'], ['items-start'], ['items-end'], ['end']],
    ],
    [
      'no items member',
      '{"kind":"Status","code":404}',
      [['field', 'kind', 'Status'], ['field', 'code', 404], ['end']],
    ],
    ['an empty object', ' {} ', [['end']]],
    ['items: null', '{"items":null}', [['field', 'items', null], ['end']]],
    [
      'members after the items',
      '{"items":[1,"two",[3]],"metadata":{"a":1}}',
      [
        ['items-start'],
        ['item', 1],
        ['item', 'two'],
        ['item', [3]],
        ['items-end'],
        ['field', 'metadata', { a: 1 }],
        ['end'],
      ],
    ],
    [
      'a key with escapes',
      '{"a\\"b\\\\":1,"items":[]}',
      [['field', 'a"b\\', 1], ['items-start'], ['items-end'], ['end']],
    ],
  ])('handles %s', (_name, text, expected) => {
    expect(split(text, 1)).toEqual(expected);
    expect(split(text)).toEqual(expected);
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"x"'],
    ['a missing colon', '{"kind" "PodList"}'],
    ['a missing comma between members', '{"a":1 "b":2}'],
    ['a missing comma between items', '{"items":[{} {}]}'],
    ['data after the object', '{"items":[]} x'],
    ['a member name that is not a string', '{kind:1}'],
  ])('rejects %s', (_name, text) => {
    const s = new ListSplitter();
    expect(() => s.push(Buffer.from(text))).toThrow(ListSyntaxError);
  });

  it('reports where in the chunk the structure broke', () => {
    const s = new ListSplitter();
    s.push(Buffer.from('{"items":[{"a":1}'));
    let err: unknown;
    try {
      s.push(Buffer.from(', {} ] } oops'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ListSyntaxError);
    expect((err as ListSyntaxError).at).toBe(9);
  });

  it.each([
    ['the object is not closed', '{"kind":"PodList","items":[{"a":1}'],
    ['an item is cut', '{"items":[{"a":"b'],
    ['nothing came', ''],
  ])('end() throws when %s', (_name, text) => {
    const s = new ListSplitter();
    s.push(Buffer.from(text));
    expect(() => {
      s.end();
    }).toThrow(ListSyntaxError);
  });

  it('keeps each item as it came, byte for byte', () => {
    const s = new ListSplitter();
    const item = '{ "b" : [ 1 , 2 ] ,"a":"x" }';
    const events = s.push(Buffer.from(`{"items":[${item}]}`));
    const raw = events.find((e) => e.type === 'item');
    expect(raw?.type === 'item' ? raw.raw.toString() : undefined).toBe(item);
  });
});
