import { describe, expect, it } from '@jest/globals';
import {
  commandError,
  commandFailed,
  goQuote,
  noCommandSocket,
  noUnixSocket,
  vmiNotFound,
} from './errors.ts';

describe('KubeVirt error texts', () => {
  it.each<[string, string]>([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['a\\b', '"a\\\\b"'],
    ['line\nnext\ttab\r', '"line\\nnext\\ttab\\r"'],
    ['bell\x07 nul\x00 del\x7f', '"bell\\a nul\\x00 del\\x7f"'],
    ['héllo ✓', '"héllo ✓"'],
    ['zero\u200bwidth', '"zero\\u200bwidth"'],
  ])('goQuote(%j) is %s', (s, quoted) => {
    expect(goQuote(s)).toBe(quoted);
  });

  it('names the VMI, the socket and the failed command as KubeVirt does', () => {
    expect(vmiNotFound('ns1', 'vm1')).toEqual({ status: 404, message: 'VMI ns1/vm1 does not exist' });
    expect(noCommandSocket('u-1', 500)).toEqual({
      status: 500,
      message: 'No command socket found for vmi u-1',
    });
    expect(noUnixSocket('/x/virt-serial0')).toEqual({
      status: 400,
      message: 'stat /x/virt-serial0: no such file or directory',
    });
    expect(commandFailed('Pause', { success: false, message: 'domain "x" not running' }, 500)).toEqual({
      status: 500,
      message: 'server error. command Pause failed: "domain \\"x\\" not running"',
    });
    expect(commandError('Freeze', new Error('deadline exceeded'), 400)).toEqual({
      status: 400,
      message: 'unknown error encountered sending command Freeze: deadline exceeded',
    });
  });
});
