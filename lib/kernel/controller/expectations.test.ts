import { describe, it, expect } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, UIDTrackingExpectations } from './expectations.ts';

type Step =
  | ['expectCreations' | 'expectDeletions', number]
  | ['raise' | 'lower', number, number]
  | ['creationObserved' | 'deletionObserved' | 'delete']
  | ['advance', number];

function apply(expectations: ControllerExpectations, clock: FakeClock, step: Step): void {
  const key = 'ns/rs';
  switch (step[0]) {
    case 'expectCreations':
      expectations.expectCreations(key, step[1]);
      break;
    case 'expectDeletions':
      expectations.expectDeletions(key, step[1]);
      break;
    case 'raise':
      expectations.raiseExpectations(key, step[1], step[2]);
      break;
    case 'lower':
      expectations.lowerExpectations(key, step[1], step[2]);
      break;
    case 'creationObserved':
      expectations.creationObserved(key);
      break;
    case 'deletionObserved':
      expectations.deletionObserved(key);
      break;
    case 'delete':
      expectations.deleteExpectations(key);
      break;
    case 'advance':
      clock.advance(step[1]);
      break;
  }
}

describe('ControllerExpectations', () => {
  const T = EXPECTATIONS_TIMEOUT_MS;
  it.each<{ case: string; steps: Step[]; satisfied: boolean; counts?: [number, number] }>([
    { case: 'nothing recorded', steps: [], satisfied: true },
    {
      case: 'creations pending',
      steps: [['expectCreations', 2], ['creationObserved']],
      satisfied: false,
      counts: [1, 0],
    },
    {
      case: 'creations all observed',
      steps: [['expectCreations', 2], ['creationObserved'], ['creationObserved']],
      satisfied: true,
      counts: [0, 0],
    },
    { case: 'deletions pending', steps: [['expectDeletions', 1]], satisfied: false, counts: [0, 1] },
    { case: 'deletion observed', steps: [['expectDeletions', 1], ['deletionObserved']], satisfied: true },
    {
      case: 'lowered after API failures',
      steps: [
        ['expectCreations', 3],
        ['lower', 3, 0],
      ],
      satisfied: true,
    },
    {
      case: 'over-observed stays satisfied',
      steps: [['expectCreations', 1], ['creationObserved'], ['creationObserved']],
      satisfied: true,
      counts: [-1, 0],
    },
    {
      case: 'raised',
      steps: [['expectCreations', 1], ['raise', 1, 2], ['creationObserved']],
      satisfied: false,
      counts: [1, 2],
    },
    { case: 'raise without expectations is a no-op', steps: [['raise', 5, 5]], satisfied: true },
    {
      case: 'expect replaces previous counts',
      steps: [
        ['expectCreations', 4],
        ['expectDeletions', 1],
      ],
      satisfied: false,
      counts: [0, 1],
    },
    {
      case: 'not yet expired at exactly 5 minutes',
      steps: [
        ['expectCreations', 1],
        ['advance', T],
      ],
      satisfied: false,
    },
    {
      case: 'expired after 5 minutes',
      steps: [
        ['expectCreations', 1],
        ['advance', T + 1],
      ],
      satisfied: true,
    },
    {
      case: 'raise does not restart the timeout',
      steps: [
        ['expectCreations', 1],
        ['advance', T],
        ['raise', 1, 0],
        ['advance', 1],
      ],
      satisfied: true,
    },
    {
      case: 'setting again restarts the timeout',
      steps: [
        ['expectCreations', 1],
        ['advance', T],
        ['expectCreations', 1],
        ['advance', 1],
      ],
      satisfied: false,
    },
    { case: 'deleted', steps: [['expectCreations', 1], ['delete']], satisfied: true },
  ])('$case', ({ steps, satisfied, counts }) => {
    const clock = new FakeClock();
    const e = new ControllerExpectations(clock);
    for (const s of steps) apply(e, clock, s);
    expect(e.satisfiedExpectations('ns/rs')).toBe(satisfied);
    if (counts) {
      const got = e.getExpectations('ns/rs');
      expect([got?.add, got?.del]).toEqual(counts);
    }
  });

  it('keeps keys apart and sums pending creations', () => {
    const e = new ControllerExpectations(new FakeClock());
    e.expectCreations('a', 2);
    e.expectCreations('b', 3);
    e.creationObserved('b');
    expect([e.satisfiedExpectations('a'), e.satisfiedExpectations('c')]).toEqual([false, true]);
    expect(e.allPendingCreations()).toBe(4);
  });

  it('getExpectations returns a copy with the timestamp from the clock', () => {
    const clock = new FakeClock(1000);
    const e = new ControllerExpectations(clock);
    e.expectCreations('a', 1);
    const got = e.getExpectations('a');
    expect(got).toEqual({ add: 1, del: 0, timestamp: 1000 });
    if (got) got.add = 0;
    expect(e.satisfiedExpectations('a')).toBe(false);
  });
});

describe('UIDTrackingExpectations', () => {
  function newUid(): UIDTrackingExpectations {
    return new UIDTrackingExpectations(new ControllerExpectations(new FakeClock()));
  }

  it.each<{ case: string; expected: string[]; observed: string[]; satisfied: boolean; left: string[] }>([
    {
      case: 'all expected uids observed',
      expected: ['u1', 'u2'],
      observed: ['u1', 'u2'],
      satisfied: true,
      left: [],
    },
    { case: 'one still pending', expected: ['u1', 'u2'], observed: ['u1'], satisfied: false, left: ['u2'] },
    {
      case: 'a uid observed twice counts once',
      expected: ['u1', 'u2'],
      observed: ['u1', 'u1'],
      satisfied: false,
      left: ['u2'],
    },
    {
      case: 'unexpected uids are ignored',
      expected: ['u1'],
      observed: ['u9'],
      satisfied: false,
      left: ['u1'],
    },
    {
      case: 'duplicates in the list count once',
      expected: ['u1', 'u1'],
      observed: ['u1'],
      satisfied: true,
      left: [],
    },
  ])('$case', ({ expected, observed, satisfied, left }) => {
    const u = newUid();
    u.expectDeletions('ns/rs', expected);
    for (const uid of observed) u.deletionObserved('ns/rs', uid);
    expect(u.satisfiedExpectations('ns/rs')).toBe(satisfied);
    expect([...(u.getUIDs('ns/rs') ?? [])]).toEqual(left);
  });

  it('addExpectedDeletion grows the set and the count', () => {
    const u = newUid();
    u.addExpectedDeletion('k', 'u1');
    u.addExpectedDeletion('k', 'u2');
    expect(u.expectations.getExpectations('k')).toMatchObject({ add: 0, del: 2 });
    u.deletionObserved('k', 'u1');
    expect(u.satisfiedExpectations('k')).toBe(false);
    u.deletionObserved('k', 'u2');
    expect(u.satisfiedExpectations('k')).toBe(true);
  });

  it('creations pass through; deleteExpectations clears counts and uids', () => {
    const u = newUid();
    u.expectCreations('k', 1);
    expect(u.satisfiedExpectations('k')).toBe(false);
    u.creationObserved('k');
    expect(u.satisfiedExpectations('k')).toBe(true);
    u.expectDeletions('k', ['u1']);
    u.deleteExpectations('k');
    expect([u.satisfiedExpectations('k'), u.getUIDs('k')]).toEqual([true, undefined]);
  });
});
