import { describe, expect, it } from '@jest/globals';
import { clientInfo, versionInfo } from './version-info.ts';

describe('versionInfo', () => {
  it.each<[string, unknown, string]>([
    [
      "KubeVirt's /version",
      {
        gitVersion: 'v1.6.2',
        gitCommit: 'abc',
        gitTreeState: 'clean',
        buildDate: '2025-01-01T00:00:00Z',
        goVersion: 'go1.23',
        compiler: 'gc',
        platform: 'linux/amd64',
      },
      'version.Info{GitVersion:"v1.6.2", GitCommit:"abc", GitTreeState:"clean", BuildDate:"2025-01-01T00:00:00Z", GoVersion:"go1.23", Compiler:"gc", Platform:"linux/amd64"}',
    ],
    [
      "this project's api",
      { version: '0.1.0', gitCommit: 'def' },
      'version.Info{GitVersion:"0.1.0", GitCommit:"def", GitTreeState:"", BuildDate:"", GoVersion:"", Compiler:"", Platform:""}',
    ],
    [
      'not an object',
      'text',
      'version.Info{GitVersion:"", GitCommit:"", GitTreeState:"", BuildDate:"", GoVersion:"", Compiler:"", Platform:""}',
    ],
  ])('%s', (_n, info, line) => {
    expect(versionInfo(info)).toBe(line);
  });

  it('describes this build', () => {
    expect(
      clientInfo({ version: '0.1.0', gitCommit: 'c' }, { platform: 'linux', arch: 'x64', node: 'v24.1.0' }),
    ).toEqual({
      gitVersion: '0.1.0',
      gitCommit: 'c',
      compiler: 'node v24.1.0',
      platform: 'linux/amd64',
    });
  });
});
