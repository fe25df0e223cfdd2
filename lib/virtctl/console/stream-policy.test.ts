import { describe, expect, it } from '@jest/globals';
import { nextStreamStep, type StreamOutcome, type StreamStep } from './stream-policy.ts';

describe('nextStreamStep', () => {
  it.each<[StreamOutcome, boolean, StreamStep]>([
    [{ kind: 'refused', status: 400 }, false, 'retry'],
    [{ kind: 'refused', status: 400 }, true, 'retry'],
    [{ kind: 'refused', status: 404 }, false, 'fail'],
    [{ kind: 'refused', status: 404 }, true, 'fail'],
    [{ kind: 'refused', status: 403 }, true, 'fail'],
    [{ kind: 'refused', status: 409 }, false, 'fail'],
    [{ kind: 'refused', status: 503 }, false, 'fail'],
    [{ kind: 'refused', status: 503 }, true, 'retry'],
    [{ kind: 'network' }, false, 'fail'],
    [{ kind: 'network' }, true, 'retry'],
    [{ kind: 'closed', code: 1000 }, true, 'finish'],
    [{ kind: 'closed', code: 1005 }, true, 'finish'],
    [{ kind: 'closed', code: 1006 }, true, 'retry'],
    [{ kind: 'closed', code: 1001 }, true, 'retry'],
    [{ kind: 'closed', code: 1011 }, true, 'retry'],
    [{ kind: 'closed', code: 1008 }, true, 'fail'],
  ])('%j (connected before: %p) → %s', (outcome, was, step) => {
    expect(nextStreamStep(outcome, was)).toBe(step);
  });
});
