import { describe, expect, it } from '@jest/globals';
import { judge, type VmiSeen, type WaitGoal, type WaitVerdict } from './wait-goal.ts';

const running: WaitGoal = { kind: 'running' };
const gone: WaitGoal = { kind: 'gone' };
const restarted: WaitGoal = { kind: 'restarted', oldUid: 'u1' };

describe('judge', () => {
  it.each<[string, WaitGoal, VmiSeen | undefined, WaitVerdict]>([
    [
      'start, no VMI yet',
      running,
      undefined,
      { state: 'waiting', line: 'Waiting for VMI v to be Running: no VMI yet' },
    ],
    [
      'start, no phase',
      running,
      { uid: 'a' },
      { state: 'waiting', line: 'Waiting for VMI v to be Running: no phase yet' },
    ],
    [
      'start, scheduling',
      running,
      { phase: 'Scheduling' },
      { state: 'waiting', line: 'Waiting for VMI v to be Running: phase Scheduling' },
    ],
    ['start, running', running, { phase: 'Running' }, { state: 'done', line: 'VMI v is Running' }],
    [
      'start, running but deleting',
      running,
      { phase: 'Running', deleting: true },
      { state: 'waiting', line: 'Waiting for VMI v to be Running: phase Running, deleting' },
    ],
    ['start, failed', running, { phase: 'Failed' }, { state: 'failed', line: 'VMI v failed (phase Failed)' }],
    [
      'stop, still there',
      gone,
      { phase: 'Running', deleting: true },
      { state: 'waiting', line: 'Waiting for VMI v to be gone: phase Running, deleting' },
    ],
    ['stop, gone', gone, undefined, { state: 'done', line: 'VMI v is gone' }],
    [
      'restart, the old one running',
      restarted,
      { uid: 'u1', phase: 'Running' },
      { state: 'waiting', line: 'Waiting for VMI v to be Running again: phase Running (the old VMI)' },
    ],
    [
      'restart, the old one failed is not the end',
      restarted,
      { uid: 'u1', phase: 'Failed' },
      { state: 'waiting', line: 'Waiting for VMI v to be Running again: phase Failed (the old VMI)' },
    ],
    [
      'restart, between',
      restarted,
      undefined,
      { state: 'waiting', line: 'Waiting for VMI v to be Running again: no VMI yet' },
    ],
    [
      'restart, a new one pending',
      restarted,
      { uid: 'u2', phase: 'Pending' },
      { state: 'waiting', line: 'Waiting for VMI v to be Running again: phase Pending' },
    ],
    [
      'restart, a new one running',
      restarted,
      { uid: 'u2', phase: 'Running' },
      { state: 'done', line: 'VMI v is Running' },
    ],
    [
      'restart without a VMI before',
      { kind: 'restarted' },
      { uid: 'u9', phase: 'Running' },
      { state: 'done', line: 'VMI v is Running' },
    ],
  ])('%s', (_n, goal, vmi, want) => {
    expect(judge(goal, 'v', vmi)).toEqual(want);
  });
});
