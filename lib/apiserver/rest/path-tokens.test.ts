import { describe, expect, it } from '@jest/globals';
import { pathTokens } from './path-tokens.ts';

describe('pathTokens', () => {
  it.each<[string, string, readonly string[] | undefined]>([
    ['the root', '/', []],
    ['slashes at either end dropped', '//apis/g//', ['apis', 'g']],
    ['a query cut off', '/apis/g?x=/y', ['apis', 'g']],
    ['an empty segment inside kept', '/a//b', ['a', '', 'b']],
    ['each segment decoded on its own', '/a/vm%2Dx/%63onsole', ['a', 'vm-x', 'console']],
    ['an escaped slash: no tokens', '/a/vm%2Fconsole/pause', undefined],
    ['a bad escape: no tokens', '/a/%zz', undefined],
    ['a dot segment: no tokens', '/a/./b', undefined],
    ['a dot-dot segment, escaped: no tokens', '/a/%2e%2e/b', undefined],
  ])('%s', (_what, target, want) => {
    expect(pathTokens(target)).toEqual(want);
  });
});
