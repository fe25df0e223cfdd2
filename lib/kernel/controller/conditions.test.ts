import { describe, it, expect } from '@jest/globals';
import {
  conditionsEqual,
  getCondition,
  hasConditionStatus,
  removeCondition,
  setCondition,
} from './conditions.ts';
import type { Condition } from './conditions.ts';

const T0 = '2026-01-01T00:00:00Z';
const NOW = '2026-01-01T01:00:00Z';
const ready = (status: Condition['status'], extra: Partial<Condition> = {}): Condition => ({
  type: 'Ready',
  status,
  ...extra,
});
const paused: Condition = { type: 'Paused', status: 'False', lastTransitionTime: T0 };

describe('setCondition', () => {
  it.each<{ case: string; conds: Condition[] | undefined; set: Condition; want: Condition[] }>([
    {
      case: 'adds to undefined',
      conds: undefined,
      set: ready('True'),
      want: [ready('True', { lastTransitionTime: NOW })],
    },
    {
      case: 'appends a new type',
      conds: [paused],
      set: ready('False', { reason: 'Starting' }),
      want: [paused, ready('False', { reason: 'Starting', lastTransitionTime: NOW })],
    },
    {
      case: 'keeps lastTransitionTime when status is unchanged, updates reason/message',
      conds: [ready('True', { lastTransitionTime: T0, reason: 'A' })],
      set: ready('True', { reason: 'B', message: 'm' }),
      want: [ready('True', { lastTransitionTime: T0, reason: 'B', message: 'm' })],
    },
    {
      case: 'moves lastTransitionTime to now on a status change, in place',
      conds: [ready('True', { lastTransitionTime: T0 }), paused],
      set: ready('False'),
      want: [ready('False', { lastTransitionTime: NOW }), paused],
    },
    {
      case: 'uses the given lastTransitionTime on a change',
      conds: [ready('True', { lastTransitionTime: T0 })],
      set: ready('Unknown', { lastTransitionTime: '2026-01-01T00:30:00Z' }),
      want: [ready('Unknown', { lastTransitionTime: '2026-01-01T00:30:00Z' })],
    },
    {
      case: 'keeps lastTransitionTime even if the new one differs when status is unchanged',
      conds: [ready('True', { lastTransitionTime: T0 })],
      set: ready('True', { lastTransitionTime: NOW, lastProbeTime: NOW }),
      want: [ready('True', { lastTransitionTime: T0, lastProbeTime: NOW })],
    },
  ])('$case', ({ conds, set, want }) => {
    const before = structuredClone(conds);
    expect(setCondition(conds, set, NOW)).toEqual(want);
    expect(conds).toEqual(before); // input untouched
  });
});

describe('getCondition / hasConditionStatus / removeCondition', () => {
  const conds = [ready('True', { lastTransitionTime: T0 }), paused];

  it.each([
    { type: 'Ready', status: 'True', want: true },
    { type: 'Ready', status: 'False', want: false },
    { type: 'Paused', status: 'False', want: true },
    { type: 'Missing', status: 'Unknown', want: false },
  ] as const)('$type is $status: $want', ({ type, status, want }) => {
    expect(hasConditionStatus(conds, type, status)).toBe(want);
  });

  it('gets by type, undefined when absent', () => {
    expect(getCondition(conds, 'Paused')).toBe(paused);
    expect(getCondition(undefined, 'Paused')).toBeUndefined();
  });

  it.each([
    { type: 'Ready', want: [paused] },
    { type: 'Missing', want: conds },
  ])('remove $type', ({ type, want }) => {
    expect(removeCondition(conds, type)).toEqual(want);
    expect(conds).toHaveLength(2);
  });
});

describe('conditionsEqual', () => {
  const a = ready('True', { lastTransitionTime: T0, reason: 'R', lastProbeTime: T0 });
  it.each<{ case: string; left: Condition[] | undefined; right: Condition[] | undefined; want: boolean }>([
    { case: 'both empty', left: undefined, right: [], want: true },
    { case: 'identical', left: [a, paused], right: [a, paused], want: true },
    { case: 'order ignored', left: [a, paused], right: [paused, a], want: true },
    { case: 'probe time ignored', left: [a], right: [{ ...a, lastProbeTime: NOW }], want: true },
    { case: 'absent message equals empty', left: [a], right: [{ ...a, message: '' }], want: true },
    { case: 'status differs', left: [a], right: [{ ...a, status: 'False' }], want: false },
    { case: 'reason differs', left: [a], right: [{ ...a, reason: 'X' }], want: false },
    { case: 'message differs', left: [a], right: [{ ...a, message: 'x' }], want: false },
    { case: 'transition time differs', left: [a], right: [{ ...a, lastTransitionTime: NOW }], want: false },
    { case: 'extra condition', left: [a], right: [a, paused], want: false },
    { case: 'different types', left: [a], right: [paused], want: false },
    { case: 'a duplicated type is not another type', left: [a, a], right: [a, paused], want: false },
  ])('$case → $want', ({ left, right, want }) => {
    expect(conditionsEqual(left, right)).toBe(want);
    expect(conditionsEqual(right, left)).toBe(want);
  });
});
