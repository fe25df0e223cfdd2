import { describe, expect, it } from '@jest/globals';
import { SessionSlots } from './sessions.ts';

describe('SessionSlots', () => {
  it('ends the previous session of the same VMI and kind, and only that one', () => {
    const slots = new SessionSlots();
    const ended: string[] = [];
    const releaseA = slots.take('console', 'u1', (why) => ended.push(`a ${why}`));
    slots.take('vnc', 'u1', (why) => ended.push(`vnc ${why}`));
    slots.take('console', 'u2', (why) => ended.push(`other-vmi ${why}`));
    expect(ended).toEqual([]);
    const releaseB = slots.take('console', 'u1', (why) => ended.push(`b ${why}`));
    expect(ended).toEqual(['a replaced']);
    // The replaced session's late release leaves its successor in place.
    releaseA();
    expect(slots.count('console')).toBe(2);
    slots.take('console', 'u1', (why) => ended.push(`c ${why}`));
    expect(ended).toEqual(['a replaced', 'b replaced']);
    releaseB();
    expect(slots.count('console')).toBe(2);
    expect(slots.count('vnc')).toBe(1);
    slots.endAll();
    expect(ended.sort()).toEqual([
      'a replaced',
      'b replaced',
      'c shutdown',
      'other-vmi shutdown',
      'vnc shutdown',
    ]);
    expect(slots.count('console') + slots.count('vnc')).toBe(0);
  });
});
