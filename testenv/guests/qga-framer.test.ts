import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { QgaFramer, parseQgaReply } from './qga-framer.ts';
import type { QgaReply } from './qga-framer.ts';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const FF = '\xff';

interface Case {
  name: string;
  delimited: boolean;
  chunks: string[];
  want: QgaReply[][];
}

describe('QgaFramer', () => {
  it.each<Case>([
    { name: 'one reply', delimited: false, chunks: ['{"return": {}}\n'], want: [[{ return: {} }]] },
    {
      name: 'a reply split across chunks',
      delimited: false,
      chunks: ['{"retu', 'rn": 1', '}\n'],
      want: [[], [], [{ return: 1 }]],
    },
    {
      name: 'two replies in one chunk, blank lines ignored',
      delimited: false,
      chunks: ['{"return": 1}\n\n{"return": "frozen"}\n'],
      want: [[{ return: 1 }, { return: 'frozen' }]],
    },
    {
      name: 'an error reply',
      delimited: false,
      chunks: ['{"error": {"class": "GenericError", "desc": "no"}}\n'],
      want: [[{ error: { class: 'GenericError', desc: 'no' } }]],
    },
    {
      name: 'stale output before the delimiter is dropped',
      delimited: true,
      chunks: [`{"error": {"class": "GenericError", "desc": "stray"}}\n{"return": 7}\n${FF}{"return": 42}\n`],
      want: [[{ return: 42 }]],
    },
    {
      name: 'the delimiter arrives in a later chunk',
      delimited: true,
      chunks: ['{"return": 7}\n{"ret', `urn": 8}\n${FF}{"return"`, ': 42}\n{"return": {}}\n'],
      want: [[], [], [{ return: 42 }, { return: {} }]],
    },
  ])('$name', ({ delimited, chunks, want }) => {
    const f = new QgaFramer();
    if (delimited) f.expectDelimiter();
    expect(chunks.map((c) => f.push(b(c)))).toEqual(want);
  });

  it('keeps a multi-byte UTF-8 character split between chunks intact', () => {
    const f = new QgaFramer();
    const bytes = Buffer.from('{"return": "é"}\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(f.push(bytes.subarray(0, cut))).toEqual([]);
    expect(f.push(bytes.subarray(cut))).toEqual([{ return: 'é' }]);
  });
});

describe('parseQgaReply', () => {
  it.each(['not json', '[1, 2]', '{"event": "X"}', '{"error": "text"}', '42'])('rejects %s', (line) => {
    expect(() => parseQgaReply(line)).toThrow(KvError);
    try {
      parseQgaReply(line);
    } catch (err) {
      expect((err as KvError).code).toBe('KV_ERR_DECODE');
    }
  });

  it('keeps a null return', () => {
    expect(parseQgaReply('{"return": null}')).toEqual({ return: null });
  });
});
