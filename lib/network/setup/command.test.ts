import { describe, expect, it } from '@jest/globals';
import { NetnsCommandError, runCommand } from './command.ts';

describe('runCommand', () => {
  it('feeds stdin and resolves with stdout', async () => {
    await expect(runCommand(['/bin/sh', '-c', 'tr a-z A-Z'], 'link add\n')).resolves.toBe('LINK ADD\n');
  });

  it.each<{ case: string; argv: string[]; code: string; message: RegExp; stderr: string }>([
    {
      case: 'a failure with its stderr',
      argv: ['/bin/sh', '-c', 'echo "Cannot find device" >&2; exit 1'],
      code: 'KV_ERR_INTERNAL',
      message: /^\/bin\/sh -c .*: Cannot find device$/,
      stderr: 'Cannot find device\n',
    },
    {
      case: 'a failure without stderr',
      argv: ['/bin/sh', '-c', 'exit 3'],
      code: 'KV_ERR_INTERNAL',
      message: /: exit 3$/,
      stderr: '',
    },
    {
      case: 'a missing binary',
      argv: ['/nonexistent/nsenter', '--net=/x'],
      code: 'KV_ERR_CONFIG',
      message: /cannot start/,
      stderr: '',
    },
  ])('rejects $case', async ({ argv, code, message, stderr }) => {
    const err: unknown = await runCommand(argv, '').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetnsCommandError);
    expect(err).toMatchObject({ code, command: argv, message: expect.stringMatching(message), stderr });
  });

  it('kills a command past its deadline', async () => {
    const err: unknown = await runCommand(['/bin/sleep', '5'], '', undefined, 50).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KV_ERR_TIMEOUT' });
  });

  it('survives a command that does not read its input', async () => {
    await expect(runCommand(['/bin/true'], 'x'.repeat(1 << 20))).resolves.toBe('');
  });
});
