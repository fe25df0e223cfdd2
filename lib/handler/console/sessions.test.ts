import { describe, expect, it } from '@jest/globals';
import { SessionSlots } from './sessions.ts';

describe('SessionSlots', () => {
  it('ends the previous session of the same VMI and kind, and only that one', () => {
    const slots = new SessionSlots();
    const ended: string[] = [];
    const releaseA = slots.take('console', 'u1', () => ended.push('a'));
    slots.take('vnc', 'u1', () => ended.push('vnc'));
    slots.take('console', 'u2', () => ended.push('other-vmi'));
    expect(ended).toEqual([]);
    const releaseB = slots.take('console', 'u1', () => ended.push('b'));
    expect(ended).toEqual(['a']);
    // The replaced session's late release leaves its successor in place.
    releaseA();
    expect(slots.count('console')).toBe(2);
    slots.take('console', 'u1', () => ended.push('c'));
    expect(ended).toEqual(['a', 'b']);
    releaseB();
    expect(slots.count('console')).toBe(2);
    expect(slots.count('vnc')).toBe(1);
    slots.endAll();
    expect(ended.sort()).toEqual(['a', 'b', 'c', 'other-vmi', 'vnc']);
    expect(slots.count('console') + slots.count('vnc')).toBe(0);
  });
});
