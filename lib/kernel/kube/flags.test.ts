import { describe, expect, it } from '@jest/globals';
import { Command, CommanderError } from 'commander';
import { addKubeFlags, kubeFlagsToConfigOptions, type KubeFlagValues } from './flags.ts';

function parse(args: string[]): KubeFlagValues {
  const cmd = addKubeFlags(new Command('test'))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  cmd.parse(args, { from: 'user' });
  return cmd.opts<KubeFlagValues>();
}

describe('kube flags', () => {
  it('turns the flags into loadRestConfig input', () => {
    const values = parse([
      '--kubeconfig',
      '/k',
      '--context',
      'c',
      '--kube-api-qps',
      '2.5',
      '--kube-api-burst',
      '7',
    ]);
    expect(kubeFlagsToConfigOptions(values, { userAgent: 'virt-controller/1' })).toEqual({
      userAgent: 'virt-controller/1',
      kubeconfig: '/k',
      context: 'c',
      qps: 2.5,
      burst: 7,
    });
  });

  it('defaults to qps 50 and burst 100 and no kubeconfig', () => {
    expect(kubeFlagsToConfigOptions(parse([]))).toEqual({
      kubeconfig: undefined,
      context: undefined,
      qps: 50,
      burst: 100,
    });
  });

  it.each([
    ['--kube-api-qps', 'fast'],
    ['--kube-api-qps', '-1'],
    ['--kube-api-burst', '0'],
    ['--kube-api-burst', '1.5'],
  ])('rejects %s %s', (flag, value) => {
    let err: unknown;
    try {
      parse([flag, value]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).code).toBe('commander.invalidArgument');
  });

  it('lists the flags in --help', () => {
    const help = addKubeFlags(new Command('test')).helpInformation();
    for (const flag of [
      '--kubeconfig <path>',
      '--context <name>',
      '--kube-api-qps <qps>',
      '--kube-api-burst <n>',
    ]) {
      expect(help).toContain(flag);
    }
  });
});
