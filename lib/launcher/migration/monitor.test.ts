import { describe, expect, it } from '@jest/globals';
import { initialMonitor, migrationDataGiB, monitorStep, type MonitorState } from './monitor.ts';

const rules = { progressTimeoutSeconds: 150, allowPostCopy: false, allowWorkloadDisruption: false };
const start = (perGiBSeconds = 800): MonitorState =>
  initialMonitor({ nowMs: 0, perGiBSeconds, memoryBytes: 192 * 1024 * 1024 });

describe('migrationDataGiB', () => {
  it.each([
    [0, 0],
    [192 * 1024 * 1024, 1],
    [1e9, 1],
    [1e9 + 1, 2],
    [4 * 1024 ** 3, 5],
  ])('%d bytes count as %d GB', (bytes, gb) => {
    expect(migrationDataGiB(bytes)).toBe(gb);
  });
});

describe('monitorStep', () => {
  it.each<{
    name: string;
    state: MonitorState;
    nowMs: number;
    remaining: number;
    rules?: Partial<typeof rules>;
    action: unknown;
    mode?: string;
  }>([
    {
      name: 'first sample is progress',
      state: start(),
      nowMs: 400,
      remaining: 100,
      action: { kind: 'none' },
    },
    {
      name: 'less remaining than before is progress',
      state: { ...start(), watermark: 100, lastProgressMs: 0 },
      nowMs: 200_000,
      remaining: 99,
      action: { kind: 'none' },
    },
    {
      name: 'no progress for longer than the progress timeout aborts',
      state: { ...start(), watermark: 100, lastProgressMs: 0 },
      nowMs: 151_000,
      remaining: 100,
      action: { kind: 'abort', reason: 'Live migration stuck for 151 seconds and has been aborted' },
    },
    {
      name: 'no progress up to the progress timeout waits',
      state: { ...start(), watermark: 100, lastProgressMs: 0 },
      nowMs: 150_999,
      remaining: 100,
      action: { kind: 'none' },
    },
    {
      name: 'a progress timeout of 0 never aborts',
      state: { ...start(0), watermark: 100, lastProgressMs: 0 },
      nowMs: 10_000_000,
      remaining: 100,
      rules: { progressTimeoutSeconds: 0 },
      action: { kind: 'none' },
    },
    {
      name: 'over the completion time (per GiB × GiB) aborts',
      state: start(6),
      nowMs: 7000,
      remaining: 100,
      action: {
        kind: 'abort',
        reason: 'Live migration is not completed after 6 seconds and has been aborted',
      },
    },
    {
      name: 'over the completion time with disruption allowed pauses the guest',
      state: start(6),
      nowMs: 7000,
      remaining: 100,
      rules: { allowWorkloadDisruption: true },
      action: { kind: 'pause' },
      mode: 'Paused',
    },
    {
      name: 'over the completion time with disruption and post-copy allowed switches to post-copy',
      state: start(6),
      nowMs: 7000,
      remaining: 100,
      rules: { allowWorkloadDisruption: true, allowPostCopy: true },
      action: { kind: 'post-copy' },
      mode: 'PostCopy',
    },
    {
      name: 'post-copy is never aborted',
      state: { ...start(6), mode: 'PostCopy', watermark: 100 },
      nowMs: 1_000_000,
      remaining: 100,
      action: { kind: 'none' },
      mode: 'PostCopy',
    },
    {
      name: 'a paused migration over its doubled time aborts',
      state: { ...start(6), mode: 'Paused', acceptableSeconds: 12 },
      nowMs: 13_000,
      remaining: 100,
      rules: { allowWorkloadDisruption: true },
      action: {
        kind: 'abort',
        reason: 'Live migration is not completed after 12 seconds and has been aborted',
      },
      mode: 'Paused',
    },
  ])('$name', (c) => {
    const r = monitorStep(c.state, { nowMs: c.nowMs, remaining: c.remaining }, { ...rules, ...c.rules });
    expect(r.action).toEqual(c.action);
    expect(r.state.mode).toBe(c.mode ?? 'PreCopy');
  });

  it('pausing doubles the time the migration may take', () => {
    const r = monitorStep(
      start(6),
      { nowMs: 7000, remaining: 1 },
      { ...rules, allowWorkloadDisruption: true },
    );
    expect(r.state.acceptableSeconds).toBe(12);
  });
});
