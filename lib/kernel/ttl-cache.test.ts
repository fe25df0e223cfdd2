import { describe, expect, it } from '@jest/globals';
import { FakeClock } from './clock.ts';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('keeps a value for the TTL it was stored with, then drops it', () => {
    const clock = new FakeClock();
    const cache = new TtlCache<string>(clock, 10);
    cache.set('short', 'a', 1_000);
    cache.set('long', 'b', 5_000);
    clock.advance(999);
    expect([cache.get('short'), cache.get('long')]).toEqual(['a', 'b']);
    clock.advance(1);
    expect([cache.get('short'), cache.get('long')]).toEqual([undefined, 'b']);
    expect(cache.size).toBe(1);
  });

  it('drops the oldest entry at the size bound; a key set again becomes the youngest', () => {
    const cache = new TtlCache<number>(new FakeClock(), 2);
    cache.set('1', 1, 1_000);
    cache.set('2', 2, 1_000);
    cache.set('1', 10, 1_000);
    cache.set('3', 3, 1_000);
    expect([cache.get('1'), cache.get('2'), cache.get('3')]).toEqual([10, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('never holds more than its bound, whatever is stored', () => {
    const cache = new TtlCache<number>(new FakeClock(), 3);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i, 60_000);
    expect(cache.size).toBe(3);
    expect(cache.get('k99')).toBe(99);
  });

  it('stores nothing with a zero TTL or a zero bound', () => {
    const cache = new TtlCache<number>(new FakeClock(), 2);
    cache.set('k', 1, 0);
    expect(cache.get('k')).toBeUndefined();
    const none = new TtlCache<number>(new FakeClock(), 0);
    none.set('k', 1, 1_000);
    expect(none.size).toBe(0);
  });
});
