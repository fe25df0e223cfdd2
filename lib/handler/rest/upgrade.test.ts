import { describe, expect, it } from '@jest/globals';
import { queryFlag } from './upgrade.ts';

describe('queryFlag', () => {
  it.each<[string, boolean]>([
    ['/p?preserveSession=true', true],
    ['/p?a=1&preserveSession=1', true],
    ['/p?preserveSession=T', true],
    ['/p?preserveSession=True', true],
    ['/p?preserveSession=TRUE', true],
    ['/p?preserveSession=yes', false],
    ['/p?preserveSession=false', false],
    ['/p?preserveSession=', false],
    ['/p?preservesession=true', false],
    ['/p', false],
  ])('%s is %p', (target, flag) => {
    expect(queryFlag(target, 'preserveSession')).toBe(flag);
  });
});
