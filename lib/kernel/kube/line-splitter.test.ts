import { describe, expect, it } from '@jest/globals';
import { LineSplitter } from './line-splitter.ts';

const enc = new TextEncoder();

/** Cuts bytes at the given offsets into chunks. */
function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const o of [...offsets, bytes.length]) {
    chunks.push(bytes.subarray(prev, o));
    prev = o;
  }
  return chunks;
}

function feed(chunks: readonly Uint8Array[]): string[] {
  const s = new LineSplitter();
  const out: string[] = [];
  for (const c of chunks) out.push(...s.push(c));
  out.push(...s.end());
  return out;
}

describe('LineSplitter', () => {
  it.each([
    { name: 'one line, one chunk', text: '{"a":1}\n', offsets: [], want: ['{"a":1}'] },
    { name: 'two lines, one chunk', text: 'a\nb\n', offsets: [], want: ['a', 'b'] },
    { name: 'split inside a line', text: 'abc\ndef\n', offsets: [1, 2, 6], want: ['abc', 'def'] },
    { name: 'split right at the newline', text: 'abc\ndef\n', offsets: [3, 4], want: ['abc', 'def'] },
    { name: 'every byte its own chunk', text: 'xy\nz\n', offsets: [1, 2, 3, 4], want: ['xy', 'z'] },
    { name: 'no trailing newline', text: 'a\nlast', offsets: [3], want: ['a', 'last'] },
    { name: 'CRLF terminators', text: 'a\r\nb\r\n', offsets: [2], want: ['a', 'b'] },
    { name: 'empty lines are kept', text: 'a\n\nb\n', offsets: [], want: ['a', '', 'b'] },
    { name: 'empty chunks', text: 'ab\n', offsets: [0, 0, 1, 1], want: ['ab'] },
  ])('$name', ({ text, offsets, want }) => {
    expect(feed(cut(enc.encode(text), offsets))).toEqual(want);
  });

  // 'é' is 2 bytes, '€' 3 bytes, '😀' 4 bytes: cut through each of them.
  const multi = '{"n":"é€😀"}\n{"n":"ok"}\n';
  const bytes = enc.encode(multi);
  it.each(Array.from({ length: bytes.length - 1 }, (_, i) => i + 1))(
    'multi-byte UTF-8 split at byte %i',
    (at) => {
      expect(feed(cut(bytes, [at]))).toEqual(['{"n":"é€😀"}', '{"n":"ok"}']);
    },
  );

  it('returns a line as soon as its newline arrives, before the stream ends', () => {
    const s = new LineSplitter();
    expect(s.push(enc.encode('{"type":"ADDED"'))).toEqual([]);
    expect(s.bufferedBytes).toBe(15);
    expect(s.push(enc.encode('}\n{"ty'))).toEqual(['{"type":"ADDED"}']);
    expect(s.bufferedBytes).toBe(4);
  });

  it('does not keep a reference to the caller buffer', () => {
    const s = new LineSplitter();
    const buf = enc.encode('abc');
    s.push(buf);
    buf.fill(0x7a);
    expect(s.push(enc.encode('\n'))).toEqual(['abc']);
  });

  it('end() on an empty tail yields nothing', () => {
    const s = new LineSplitter();
    s.push(enc.encode('a\n'));
    expect(s.end()).toEqual([]);
  });
});
