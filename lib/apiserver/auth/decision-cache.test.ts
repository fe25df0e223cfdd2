import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../../kernel/clock.ts';
import { DecisionCache } from './decision-cache.ts';

const allow = { allowed: true } as const;
const deny = { allowed: false, reason: 'no' } as const;

describe('DecisionCache', () => {
  it.each([
    ['allowed', allow, 10_000],
    ['denied', deny, 10_000],
  ])('keeps a %s answer for its TTL (%s ms by default)', (_what, decision, ttl) => {
    const clock = new FakeClock();
    const cache = new DecisionCache(clock);
    cache.set('k', decision);
    clock.advance(ttl - 1);
    expect(cache.get('k')).toEqual(decision);
    clock.advance(1);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('uses separate TTLs for allowed and denied answers', () => {
    const clock = new FakeClock();
    const cache = new DecisionCache(clock, { allowedTtlMs: 5_000, deniedTtlMs: 1_000 });
    cache.set('a', allow);
    cache.set('d', deny);
    clock.advance(1_000);
    expect([cache.get('a'), cache.get('d')]).toEqual([allow, undefined]);
  });

  it('drops the oldest entry at the size bound', () => {
    const cache = new DecisionCache(new FakeClock(), { maxEntries: 2 });
    cache.set('1', allow);
    cache.set('2', allow);
    cache.set('1', deny); // a refresh moves it to the young end
    cache.set('3', allow);
    expect([cache.get('1'), cache.get('2'), cache.get('3')]).toEqual([deny, undefined, allow]);
    expect(cache.size).toBe(2);
  });

  it('stores nothing when a TTL or the size is zero', () => {
    const cache = new DecisionCache(new FakeClock(), { deniedTtlMs: 0 });
    cache.set('d', deny);
    expect(cache.get('d')).toBeUndefined();
    const none = new DecisionCache(new FakeClock(), { maxEntries: 0 });
    none.set('a', allow);
    expect(none.size).toBe(0);
  });
});
