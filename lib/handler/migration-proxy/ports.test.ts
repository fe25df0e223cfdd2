// The port choice, as a table: the lowest free port, never one held or busy, a clear error when none is left.
import { describe, expect, it } from '@jest/globals';
import { checkPortRange, DEFAULT_MIGRATION_PORT_RANGE, freePort, type PortRange } from './ports.ts';

const R: PortRange = { first: 4135, last: 4138 };

describe('freePort', () => {
  it.each<[string, number[], number[], number]>([
    ['the first port of an empty range', [], [], 4135],
    ['the next one while the first is held', [4135], [], 4136],
    ['a gap a stopped proxy left', [4135, 4137], [], 4136],
    ['past a port another program uses', [4135], [4136], 4137],
    ['the last one', [4135, 4136, 4137], [], 4138],
    ['ignoring held ports outside the range', [80, 4139], [], 4135],
  ])('takes %s', (_what, held, busy, want) => {
    expect(freePort(R, new Set(held), new Set(busy))).toBe(want);
  });

  it.each<[string, number[], number[], string]>([
    [
      'all held by proxies',
      [4135, 4136, 4137, 4138],
      [],
      'no free migration port in 4135-4138: 4 of 4 held by migration proxies, 0 in use by other programs',
    ],
    [
      'some in use by others',
      [4135, 4136],
      [4137, 4138],
      'no free migration port in 4135-4138: 2 of 4 held by migration proxies, 2 in use by other programs',
    ],
  ])('fails when %s', (_what, held, busy, message) => {
    expect(() => freePort(R, new Set(held), new Set(busy))).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CONFIG', message }),
    );
  });

  it('hands out each port of the default range once, then fails', () => {
    const held = new Set<number>();
    for (let i = 0; i < 65; i++) held.add(freePort(DEFAULT_MIGRATION_PORT_RANGE, held, new Set()));
    expect([...held]).toEqual(Array.from({ length: 65 }, (_, i) => 4135 + i));
    expect(() => freePort(DEFAULT_MIGRATION_PORT_RANGE, held, new Set())).toThrow(/4135-4199/);
  });
});

describe('checkPortRange', () => {
  it.each<[PortRange, boolean]>([
    [{ first: 4135, last: 4199 }, true],
    [{ first: 4135, last: 4135 }, true],
    [{ first: 4199, last: 4135 }, false],
    [{ first: 0, last: 10 }, false],
    [{ first: 65535, last: 65536 }, false],
    [{ first: 1.5, last: 3 }, false],
  ])('%j is a range: %s', (r, ok) => {
    if (ok) expect(checkPortRange(r)).toBe(r);
    else expect(() => checkPortRange(r)).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
  });
});
