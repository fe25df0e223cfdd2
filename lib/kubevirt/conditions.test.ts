import { describe, expect, it } from '@jest/globals';
import { findCondition, hasConditionStatus, upsertCondition, withoutCondition } from './conditions.ts';
import type { Condition } from './v1/common.ts';

type Cond = Condition<string>;
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T01:00:00Z';
const ready = (status: Cond['status'], extra: Partial<Cond> = {}): Cond => ({
  type: 'Ready',
  status,
  ...extra,
});
const paused: Cond = { type: 'Paused', status: 'False', lastTransitionTime: T0 };

describe('upsertCondition', () => {
  it.each<{ case: string; conds: Cond[] | undefined; set: Cond; want: Cond[] }>([
    { case: 'adds to undefined', conds: undefined, set: ready('True'), want: [ready('True')] },
    {
      case: 'appends a new type after the others',
      conds: [paused],
      set: ready('False', { reason: 'Starting' }),
      want: [paused, ready('False', { reason: 'Starting' })],
    },
    {
      case: 'keeps the old one (and its times) when status and reason are unchanged',
      conds: [ready('True', { reason: 'A', lastProbeTime: T0, lastTransitionTime: T0 })],
      set: ready('True', { reason: 'A', message: 'new text', lastProbeTime: T1, lastTransitionTime: T1 }),
      want: [ready('True', { reason: 'A', lastProbeTime: T0, lastTransitionTime: T0 })],
    },
    {
      case: 'replaces in place on a status change',
      conds: [ready('True', { lastTransitionTime: T0 }), paused],
      set: ready('False', { lastTransitionTime: T1 }),
      want: [ready('False', { lastTransitionTime: T1 }), paused],
    },
    {
      case: 'replaces on a reason change alone',
      conds: [ready('False', { reason: 'A' })],
      set: ready('False', { reason: 'B' }),
      want: [ready('False', { reason: 'B' })],
    },
  ])('$case', ({ conds, set, want }) => {
    const before = structuredClone(conds);
    expect(upsertCondition(conds, set)).toEqual(want);
    expect(conds).toEqual(before);
  });

  it('returns a new array even when nothing changes', () => {
    const conds = [paused];
    const out = upsertCondition(conds, paused);
    expect(out).toEqual(conds);
    expect(out).not.toBe(conds);
  });
});

describe('findCondition, hasConditionStatus, withoutCondition', () => {
  const conds = [ready('False', { reason: 'PodNotReady' }), paused];

  it.each<[string, [string, Cond['status'], string?], boolean]>([
    ['type and status match, no reason asked', ['Ready', 'False'], true],
    ['type, status and reason match', ['Ready', 'False', 'PodNotReady'], true],
    ['reason differs', ['Ready', 'False', 'Other'], false],
    ['status differs', ['Ready', 'True'], false],
    ['type absent', ['Synchronized', 'False'], false],
  ])('hasConditionStatus: %s', (_case, [type, status, reason], want) => {
    expect(hasConditionStatus(conds, type, status, reason)).toBe(want);
  });

  it('finds by type, and is undefined on undefined lists', () => {
    expect(findCondition(conds, 'Paused')).toBe(paused);
    expect(findCondition(undefined, 'Paused')).toBeUndefined();
  });

  it('removes every condition of the type and leaves the input alone', () => {
    expect(withoutCondition(conds, 'Ready')).toEqual([paused]);
    expect(withoutCondition(undefined, 'Ready')).toEqual([]);
    expect(conds).toHaveLength(2);
  });
});
