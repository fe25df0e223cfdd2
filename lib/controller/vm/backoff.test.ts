import { describe, expect, it } from '@jest/globals';
import type { RunStrategy } from '../../kubevirt/index.ts';
import { T0, vm, vmi, withPhase, withStartFailure, withVmiUid } from '../../kubevirt/testing/objects.ts';
import {
  MAX_START_BACKOFF_SECONDS,
  nextStartFailure,
  startBackoffSeconds,
  startBackoffSecondsLeft,
} from './backoff.ts';

describe('startBackoffSeconds', () => {
  // interval = max(10, 300/30) = 10; delay = 10·n² + floor(r·(delay/2 + 1)), capped at 300.
  it.each([
    [0, 0, 10],
    [1, 0, 10],
    [1, 0.999, 15],
    [2, 0, 40],
    [2, 0.5, 50],
    [3, 0, 90],
    [4, 0.999, 240],
    [5, 0, 250],
    [5, 0.5, 300],
    [6, 0, 300],
    [100, 0.3, 300],
  ])('failures %i, random %f → %i s', (count, r, want) => {
    expect(startBackoffSeconds(count, MAX_START_BACKOFF_SECONDS, () => r)).toBe(want);
  });

  it.each([
    [600, 1, 20],
    [60, 1, 10],
    [60, 3, 60],
  ])('maxDelay %i: interval follows maxDelay/30 (failures %i → %i s)', (max, count, want) => {
    expect(startBackoffSeconds(count, max, () => 0)).toBe(want);
  });
});

describe('startBackoffSecondsLeft', () => {
  it.each([
    ['no start failure', vm(), 0],
    ['retry in 30 s', vm(withStartFailure(1, T0 + 30_000)), 30],
    ['retry passed', vm(withStartFailure(1, T0 - 5_000)), 0],
  ])('%s', (_n, v, want) => {
    expect(startBackoffSecondsLeft(v, T0 + 400)).toBe(want);
  });
});

describe('nextStartFailure', () => {
  const failedEarly = vmi(withPhase('Failed', 'Pending', 'Scheduling'));
  const ranThenFailed = vmi(withPhase('Failed', 'Scheduled', 'Running'));
  const base = { nowMs: T0, random: (): number => 0 };
  const current = {
    consecutiveFailCount: 2,
    lastFailedVMIUID: 'old',
    retryAfterTimestamp: '2025-12-31T00:00:00Z',
  };

  it.each<[string, Parameters<typeof nextStartFailure>[0], ReturnType<typeof nextStartFailure>]>([
    [
      'first early failure under Always: count 1, retry after 10 s',
      { ...base, current: undefined, vmi: failedEarly, runStrategy: 'Always' },
      { consecutiveFailCount: 1, lastFailedVMIUID: 'vmi-uid-1', retryAfterTimestamp: '2026-01-01T00:00:10Z' },
    ],
    [
      'third failure: count 3, retry after 90 s',
      { ...base, current, vmi: failedEarly, runStrategy: 'RerunOnFailure' },
      { consecutiveFailCount: 3, lastFailedVMIUID: 'vmi-uid-1', retryAfterTimestamp: '2026-01-01T00:01:30Z' },
    ],
    [
      'the same VMI is counted once',
      {
        ...base,
        current: { ...current, lastFailedVMIUID: 'vmi-uid-1' },
        vmi: failedEarly,
        runStrategy: 'Always',
      },
      { ...current, lastFailedVMIUID: 'vmi-uid-1' },
    ],
    [
      'a VMI that reached Running clears it',
      { ...base, current, vmi: ranThenFailed, runStrategy: 'Always' },
      undefined,
    ],
    [
      'a running VMI clears it',
      { ...base, current, vmi: vmi(withPhase('Running', 'Scheduled')), runStrategy: 'Always' },
      undefined,
    ],
    ['Manual never counts', { ...base, current, vmi: failedEarly, runStrategy: 'Manual' }, undefined],
    ['Halted clears it', { ...base, current, vmi: undefined, runStrategy: 'Halted' }, undefined],
    ['no VMI keeps the count', { ...base, current, vmi: undefined, runStrategy: 'Always' }, current],
    [
      'a VMI still starting keeps the count',
      { ...base, current, vmi: vmi(withPhase('Scheduling'), withVmiUid('x')), runStrategy: 'Once' },
      current,
    ],
  ])('%s', (_n, input, want) => {
    expect(nextStartFailure(input)).toEqual(want);
  });

  it.each<RunStrategy>(['Always', 'RerunOnFailure', 'Once'])('%s counts early failures', (runStrategy) => {
    expect(nextStartFailure({ ...base, current: undefined, vmi: failedEarly, runStrategy })).toBeDefined();
  });
});
