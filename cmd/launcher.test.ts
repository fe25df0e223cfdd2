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

  it('has the node-labeller, convert and probe subcommands with their required flags', () => {
    const { cmd, errors } = quiet(launcherCommand());
    expect(cmd.commands.map((c) => c.name())).toEqual(['node-labeller', 'convert', 'probe']);
    expect(() => cmd.parse(['node-labeller'], { from: 'user' })).toThrow();
    expect(errors.join('')).toContain('--output');
  });
});

describe('virt launcher probe flags', () => {
  const probe = (args: string[]): { opts: Record<string, unknown>; args: string[] } => {
    const { cmd } = quiet(launcherCommand());
    cmd.parse(['probe', ...args], { from: 'user' });
    const sub = cmd.commands.find((c) => c.name() === 'probe');
    if (sub === undefined) throw new Error('no probe subcommand');
    return { opts: sub.opts(), args: sub.args };
  };

  it("takes KubeVirt virt-probe's flags for a guest agent ping, with its defaults", () => {
    expect(probe(['--domainName', 'ns_vm', '--timeoutSeconds', '3', '--guestAgentPing'])).toEqual({
      opts: {
        socket: '/var/run/kubevirt/sockets/launcher-sock',
        domainName: 'ns_vm',
        timeoutSeconds: 3,
        guestAgentPing: true,
      },
      args: [],
    });
  });

  it('takes the guest command after --, options of its own included', () => {
    const r = probe(['--domainName', 'ns_vm', '--command', '/bin/sh', '--', '-c', 'test -e /ok']);
    expect(r.opts).toMatchObject({ command: '/bin/sh', timeoutSeconds: 1, guestAgentPing: false });
    expect(r.args).toEqual(['-c', 'test -e /ok']);
  });
});
