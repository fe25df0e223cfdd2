import { describe, expect, it } from '@jest/globals';
import { ByteHistory } from './history.ts';

describe('ByteHistory', () => {
  it('keeps everything under the limit', () => {
    const h = new ByteHistory(16);
    h.push(Buffer.from('boot '));
    h.push(Buffer.from('ok'));
    expect(h.contents().toString()).toBe('boot ok');
    expect(h.length).toBe(7);
  });

  it.each([
    ['drops whole chunks', ['aaaa', 'bbbb', 'cccc'], 8, 'bbbbcccc'],
    ['cuts into the oldest chunk', ['abcdef', 'gh'], 5, 'defgh'],
    ['keeps the tail of one big chunk', ['0123456789'], 4, '6789'],
  ])('%s', (_what, chunks, limit, want) => {
    const h = new ByteHistory(limit);
    for (const c of chunks) h.push(Buffer.from(c));
    expect(h.contents().toString()).toBe(want);
    expect(h.length).toBe(want.length);
  });

  it('clears', () => {
    const h = new ByteHistory(8);
    h.push(Buffer.from('x'));
    h.clear();
    expect(h.contents().length).toBe(0);
  });
});
