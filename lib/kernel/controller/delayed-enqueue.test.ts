import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { DelayedEnqueue } from './delayed-enqueue.ts';

describe('DelayedEnqueue', () => {
  it('hands a burst of wake-ups of one key over once, delayMs after the first', () => {
    const clock = new FakeClock(0);
    const added: string[] = [];
    const d = new DelayedEnqueue(clock, 500, (k) => added.push(k));
    d.enqueue('a');
    clock.advance(300);
    d.enqueue('a');
    d.enqueue('b');
    expect(added).toEqual([]);
    clock.advance(200);
    expect(added).toEqual(['a']);
    clock.advance(300);
    expect(added).toEqual(['a', 'b']);
    d.enqueue('a');
    clock.advance(500);
    expect(added).toEqual(['a', 'b', 'a']);
  });

  it('passes keys straight through with no delay, and forgets pending ones when cancelled', () => {
    const clock = new FakeClock(0);
    const added: string[] = [];
    new DelayedEnqueue(clock, 0, (k) => added.push(k)).enqueue('x');
    expect(added).toEqual(['x']);
    const d = new DelayedEnqueue(clock, 100, (k) => added.push(k));
    d.enqueue('y');
    d.cancelAll();
    clock.advance(1000);
    expect(added).toEqual(['x']);
  });
});
