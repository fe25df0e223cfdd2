import { describe, expect, it } from '@jest/globals';
import type { Command } from 'commander';
import { launcherCommand } from './launcher.ts';

function quiet(cmd: Command): { cmd: Command; errors: string[] } {
  const errors: string[] = [];
  const silence = (c: Command): void => {
    c.exitOverride().configureOutput({ writeErr: (s) => errors.push(s), writeOut: () => undefined });
    c.action(() => undefined);
  };
  silence(cmd);
  for (const sub of cmd.commands) silence(sub);
  return { cmd, errors };
}

describe('virt launcher flags', () => {
  it('parses the launcher flags with their defaults', () => {
    const { cmd } = quiet(launcherCommand());
    cmd.parse(['--name', 'vm', '--namespace', 'ns', '--uid', 'u1', '--root', '/tmp/r'], { from: 'user' });
    expect(cmd.opts()).toEqual({
      name: 'vm',
      namespace: 'ns',
      uid: 'u1',
      root: '/tmp/r',
      gracePeriodSeconds: 30,
      emulation: 'auto',
      verbosity: 2,
    });
  });

  it.each([
    ['an unknown emulation mode', ['--emulation', 'maybe'], 'maybe'],
    ['a negative grace period', ['--grace-period-seconds', '-1'], 'whole number'],
  ])('refuses %s', (_what, args, msg) => {
    const { cmd, errors } = quiet(launcherCommand());
    expect(() => cmd.parse(args, { from: 'user' })).toThrow();
    expect(errors.join('')).toContain(msg);
  });

  it('has the node-labeller and convert subcommands with their required flags', () => {
    const { cmd, errors } = quiet(launcherCommand());
    expect(cmd.commands.map((c) => c.name())).toEqual(['node-labeller', 'convert']);
    expect(() => cmd.parse(['node-labeller'], { from: 'user' })).toThrow();
    expect(errors.join('')).toContain('--output');
  });
});
