import { describe, expect, it } from '@jest/globals';
import { resolveNamespace } from './client.ts';

describe('resolveNamespace', () => {
  it.each<[string | undefined, string | undefined, string]>([
    ['flag', 'ctx', 'flag'],
    [undefined, 'ctx', 'ctx'],
    ['', 'ctx', 'ctx'],
    [undefined, undefined, 'default'],
    [undefined, '', 'default'],
  ])('-n %j, context %j → %s', (flag, ctx, ns) => {
    expect(resolveNamespace(flag, ctx)).toBe(ns);
  });
});
