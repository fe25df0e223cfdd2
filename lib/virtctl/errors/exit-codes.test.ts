import { describe, expect, it } from '@jest/globals';
import { EXIT, exitCodeHelp } from './exit-codes.ts';

describe('exit codes', () => {
  it('are distinct and each is in the help text', () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
    const help = exitCodeHelp();
    for (const c of codes) expect(help).toMatch(new RegExp(`^ +${c}  `, 'm'));
  });
});
