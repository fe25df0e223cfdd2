import { describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { namesList, namesOption } from './flags.ts';

describe('namesList', () => {
  it.each<[string, string[]]>([
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    [' a , b', ['a', 'b']],
    ['a,,b,', ['a', 'b']],
    ['', []],
    [' , ', []],
    ['system:serviceaccount:ns:x,y', ['system:serviceaccount:ns:x', 'y']],
  ])('%j → %j', (value, names) => {
    expect(namesList(value)).toEqual(names);
  });
});

describe('namesOption', () => {
  const parse = (args: string[]): unknown => {
    const cmd = new Command('t')
      .exitOverride()
      .addOption(namesOption('--names <names>', 'the names', ['x', 'y']));
    cmd.parse(args, { from: 'user' });
    return cmd.opts()['names'];
  };

  it('gives its default as a list, and the list the flag names', () => {
    expect(parse([])).toEqual(['x', 'y']);
    expect(parse(['--names', ' a, b '])).toEqual(['a', 'b']);
    expect(parse(['--names', ' , '])).toEqual([]);
  });

  it('shows the default as one would pass it', () => {
    const cmd = new Command('t').addOption(namesOption('--names <names>', 'the names', ['x', 'y']));
    expect(cmd.helpInformation()).toContain('the names (default: "x,y")');
  });
});
