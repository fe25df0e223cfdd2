import { describe, expect, it } from '@jest/globals';
import { selfCommand, type ProcessFacts } from './self-command.ts';

describe('selfCommand', () => {
  it.each<[string, ProcessFacts, string[]]>([
    [
      'the build (node dist/virtctl-ts.mjs)',
      {
        execPath: '/usr/bin/node',
        execArgv: [],
        argv: ['/usr/bin/node', '/opt/kv/dist/virtctl-ts.mjs', 'ssh'],
      },
      ['/usr/bin/node', '/opt/kv/dist/virtctl-ts.mjs'],
    ],
    [
      'a checkout (bin/virtctl-ts: node --import the tsx loader cmd/virtctl.ts)',
      {
        execPath: '/r/.tools/node/bin/node',
        execArgv: ['--import', '/r/node_modules/tsx/dist/loader.mjs'],
        argv: ['/r/.tools/node/bin/node', '/r/cmd/virtctl.ts', 'ssh', 'vmi/x'],
      },
      ['/r/.tools/node/bin/node', '--import', '/r/node_modules/tsx/dist/loader.mjs', '/r/cmd/virtctl.ts'],
    ],
    [
      'a debugged run (its inspector flags dropped)',
      {
        execPath: '/usr/bin/node',
        execArgv: ['--inspect-brk=9229', '--enable-source-maps', '--inspect'],
        argv: ['/usr/bin/node', '/opt/kv/dist/virtctl-ts.mjs'],
      },
      ['/usr/bin/node', '--enable-source-maps', '/opt/kv/dist/virtctl-ts.mjs'],
    ],
    [
      'no script (node -e)',
      { execPath: '/usr/bin/node', execArgv: ['-e'], argv: ['/usr/bin/node'] },
      ['virtctl-ts'],
    ],
  ])('%s', (_name, facts, want) => {
    expect(selfCommand(facts)).toEqual(want);
  });
});
