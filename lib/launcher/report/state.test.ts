import { describe, expect, it } from '@jest/globals';
import { describeState } from '../../libvirt/index.ts';
import { kubevirtState, reasonOf, watchEventFor } from './state.ts';

describe('kubevirtState', () => {
  // libvirt (state, reason) numbers → KubeVirt's LifeCycle and StateChangeReason (virtwrap/api schema.go).
  it.each([
    [1, 1, 'Running', 'Booted'],
    [1, 5, 'Running', 'Unpaused'],
    [3, 1, 'Paused', 'User'],
    [3, 5, 'Paused', 'IOError'],
    [3, 11, 'Paused', 'StartingUp'],
    [3, 13, 'Paused', 'PostcopyFailed'],
    [4, 1, 'ShuttingDown', 'User'],
    [5, 1, 'Shutoff', 'Shutdown'],
    [5, 2, 'Shutoff', 'Destroyed'],
    [5, 3, 'Shutoff', 'Crashed'],
    [5, 7, 'Shutoff', 'FromSnapshot'],
    [6, 1, 'Crashed', 'Panicked'],
    [7, 0, 'PMSuspended', 'Unknown'],
    [0, 0, 'NoState', 'Unknown'],
  ])('libvirt state %i reason %i is %s/%s', (state, reason, status, kvReason) => {
    expect(kubevirtState(describeState(state, reason))).toEqual({ status, reason: kvReason });
  });

  it('spells reasons in PascalCase', () => {
    expect(reasonOf('migration_canceled')).toBe('MigrationCanceled');
    expect(reasonOf('')).toBe('');
  });
});

describe('watchEventFor', () => {
  it.each([
    [{ event: 'defined', detail: 'added' }, true, 'ADDED'],
    [{ event: 'defined', detail: 'updated' }, true, 'MODIFIED'],
    [{ event: 'started', detail: 'booted' }, true, 'MODIFIED'],
    [{ event: 'stopped', detail: 'crashed' }, true, 'MODIFIED'],
    [{ event: 'undefined', detail: 'removed' }, true, 'DELETED'],
    [{ event: 'stopped', detail: 'destroyed' }, false, 'DELETED'],
  ])('%j (exists: %s) → %s', (lifecycle, exists, want) => {
    expect(watchEventFor(lifecycle, exists)).toBe(want);
  });
});
