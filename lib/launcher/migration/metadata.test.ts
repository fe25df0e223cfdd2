import { describe, expect, it } from '@jest/globals';
import type { MigrationMetadataJson } from '../../rpc/index.ts';
import { isCancellable, startMetadata, withResult, type MigrationResult } from './metadata.ts';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const running: MigrationMetadataJson = { UID: 'm1', StartTimestamp: T0, Mode: 'PreCopy' };
const ended: MigrationMetadataJson = { ...running, EndTimestamp: T1 };

describe('startMetadata', () => {
  it('starts a fresh record for a new migration uid', () => {
    expect(startMetadata(ended, { uid: 'm2', now: T1 })).toEqual({
      UID: 'm2',
      StartTimestamp: T1,
      Mode: 'PreCopy',
    });
  });
  it('says running for the migration already under way', () => {
    expect(startMetadata(running, { uid: 'm1', now: T1 })).toBe('running');
  });
  it('refuses to run an ended migration again', () => {
    expect(() => startMetadata(ended, { uid: 'm1', now: T1 })).toThrow(/m1 already executed/);
  });
});

describe('withResult', () => {
  const aborting: MigrationMetadataJson = { ...running, AbortStatus: 'Aborting' };
  it.each<{
    name: string;
    m: MigrationMetadataJson | undefined;
    r: Omit<MigrationResult, 'now'>;
    want: unknown;
  }>([
    { name: 'no migration: nothing', m: undefined, r: { failed: true }, want: undefined },
    { name: 'success ends it', m: running, r: { failed: false }, want: { ...running, EndTimestamp: T1 } },
    {
      name: 'failure ends it with the reason',
      m: running,
      r: { failed: true, reason: 'stuck' },
      want: { ...running, Failed: true, FailureReason: 'stuck', EndTimestamp: T1 },
    },
    { name: 'an ended record is kept', m: ended, r: { failed: true, reason: 'late' }, want: ended },
    {
      name: 'abort requested: not ended',
      m: running,
      r: { failed: false, abortStatus: 'Aborting' },
      want: aborting,
    },
    {
      name: 'a second abort request waits',
      m: aborting,
      r: { failed: false, abortStatus: 'Aborting' },
      want: 'abort-in-progress',
    },
    {
      name: 'a plain result waits for the abort',
      m: aborting,
      r: { failed: true, reason: 'x' },
      want: 'abort-in-progress',
    },
    {
      name: 'the abort succeeded: failed and ended',
      m: aborting,
      r: { failed: true, reason: 'Live migration aborted ', abortStatus: 'Succeeded' },
      want: {
        ...running,
        Failed: true,
        FailureReason: 'Live migration aborted ',
        AbortStatus: 'Succeeded',
        EndTimestamp: T1,
      },
    },
    {
      name: 'the abort failed: still running',
      m: aborting,
      r: { failed: false, abortStatus: 'Failed' },
      want: { ...running, AbortStatus: 'Failed' },
    },
  ])('$name', (c) => {
    expect(withResult(c.m, { ...c.r, now: T1 })).toEqual(c.want);
  });
});

describe('isCancellable', () => {
  it.each<[string, MigrationMetadataJson | undefined, boolean]>([
    ['no migration', undefined, false],
    ['running', running, true],
    ['ended', ended, false],
    ['failed', { ...running, Failed: true }, false],
  ])('%s', (_n, m, want) => {
    expect(isCancellable(m)).toBe(want);
  });
});
