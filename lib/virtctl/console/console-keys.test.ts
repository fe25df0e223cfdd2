import { describe, expect, it } from '@jest/globals';
import { splitAtEscape } from './console-keys.ts';

describe('splitAtEscape', () => {
  it.each<[string, number[], number[], boolean]>([
    ['plain bytes pass', [0x6c, 0x73, 0x0d], [0x6c, 0x73, 0x0d], false],
    ['Ctrl+C goes to the guest', [0x03], [0x03], false],
    ['Ctrl+] alone ends', [0x1d], [], true],
    ['bytes before Ctrl+] are sent, after it dropped', [0x61, 0x1d, 0x62], [0x61], true],
    ['an empty chunk', [], [], false],
  ])('%s', (_n, input, forward, escape) => {
    const r = splitAtEscape(Buffer.from(input));
    expect({ forward: [...r.forward], escape: r.escape }).toEqual({ forward, escape });
  });
});
