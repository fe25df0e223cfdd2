import { describe, expect, it } from '@jest/globals';
import { microTime, newLease, recordOf, sameRecord } from './lease.ts';

describe('lease record', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000000Z'],
    [1_700_000_000_123, '2023-11-14T22:13:20.123000Z'],
  ])('formats %d as MicroTime %s', (ms, want) => {
    expect(microTime(ms)).toBe(want);
  });

  it('reads a lease without spec as a free record', () => {
    expect(recordOf({ metadata: {} })).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: '',
      renewTime: '',
      leaseTransitions: 0,
    });
  });

  it('round-trips a record through a new lease and compares field by field', () => {
    const r = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: 't0',
      renewTime: 't1',
      leaseTransitions: 2,
    };
    const lease = newLease('ns', 'lock', r);
    expect(lease.metadata).toEqual({ namespace: 'ns', name: 'lock' });
    expect(recordOf(lease)).toEqual(r);
    expect(sameRecord(recordOf(lease), r)).toBe(true);
    expect(sameRecord(recordOf(lease), { ...r, renewTime: 't2' })).toBe(false);
    expect(sameRecord(undefined, r)).toBe(false);
  });
});
