import { describe, expect, it } from '@jest/globals';
import { Option } from 'commander';
import { GoFlagsCommand, goBool } from './go-flags.ts';

/** The options and arguments a GoFlagsCommand with --stdio (false), --on (true) and -c <cmd> reads. */
function parse(argv: string[]): { opts: Record<string, unknown>; args: string[]; source: unknown } {
  let seen: string[] = [];
  const cmd = new GoFlagsCommand('x')
    .addOption(new Option('--stdio').default(false))
    .addOption(new Option('--on').default(true))
    .option('-c, --command <cmd>')
    .argument('[rest...]')
    .exitOverride()
    .action((rest: string[]) => {
      seen = rest;
    });
  cmd.parse(argv, { from: 'user' });
  return { opts: cmd.opts(), args: seen, source: cmd.getOptionValueSource('stdio') };
}

describe('Go boolean flags', () => {
  it.each<[string[], Record<string, unknown>, string[]]>([
    [['a'], { stdio: false, on: true }, ['a']],
    [['--stdio', 'a'], { stdio: true, on: true }, ['a']],
    [['--stdio=true', 'a', 'b'], { stdio: true, on: true }, ['a', 'b']],
    [['a', '--stdio=1', '--on=false'], { stdio: true, on: false }, ['a']],
    [['--on=F', '--stdio=False'], { stdio: false, on: false }, []],
    // the value of -c is never read as a flag, nor anything after --
    [['-c', '--stdio=true', 'a'], { stdio: false, on: true, command: '--stdio=true' }, ['a']],
    [['--', '--stdio=true'], { stdio: false, on: true }, ['--stdio=true']],
  ])('%j', (argv, opts, args) => {
    const r = parse(argv);
    expect(r.opts).toEqual(opts);
    expect(r.args).toEqual(args);
  });

  it('records a --flag=value as given on the command line', () => {
    expect(parse(['--stdio=false']).source).toBe('cli');
    expect(parse([]).source).toBe('default');
  });

  it('refuses a value strconv.ParseBool refuses, as pflag words it', () => {
    expect(() => goBool('--stdio', 'yes')).toThrow(
      'invalid argument "yes" for "--stdio" flag: strconv.ParseBool: parsing "yes": invalid syntax (use true or false)',
    );
  });
});
