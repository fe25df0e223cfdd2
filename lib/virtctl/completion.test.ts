import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { Command } from 'commander';
import { bashCompletion, commandTree, zshCompletion, type CompletionNode } from './completion.ts';

const tiny: CompletionNode = {
  name: 'vc',
  flags: ['-n', '--namespace', '--kubeconfig'],
  valueFlags: ['-n', '--namespace', '--kubeconfig'],
  argChoices: [],
  commands: [
    { name: 'start', flags: ['--paused'], valueFlags: [], argChoices: [], commands: [] },
    { name: 'pause', flags: ['--dry-run'], valueFlags: [], argChoices: ['vm', 'vmi'], commands: [] },
  ],
};

/** Completions bash offers for the words typed so far (the last one being completed). */
function bashOffers(script: string, words: string[]): string[] {
  const line = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', [
    '-c',
    `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _vc; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return out
    .toString()
    .split('\n')
    .filter((w) => w !== '');
}

/**
 * What zsh offers for the words typed so far: the generated function run by a real zsh outside the completion
 * system, with compadd (which filters by the typed prefix) and compdef stubbed.
 */
function zshOffers(script: string, words: string[]): string[] {
  const line = words.map((w) => `'${w}'`).join(' ');
  const stubs = 'compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; printf "%s\\n" "$@"; }';
  const out = execFileSync('zsh', [
    '-fc',
    `${stubs}\n${script}\nwords=(${line}); CURRENT=${words.length}; _vc`,
  ]);
  const prefix = words.at(-1) ?? '';
  return out
    .toString()
    .split('\n')
    .filter((w) => w !== '' && w.startsWith(prefix));
}

const OFFERS: [string[], string[]][] = [
  [
    ['vc', ''],
    ['start', 'pause', '-n', '--namespace', '--kubeconfig'],
  ],
  [['vc', 'st'], ['start']],
  [
    ['vc', '-n', 'start', ''],
    ['start', 'pause', '-n', '--namespace', '--kubeconfig'],
  ],
  [['vc', 'start', '--p'], ['--paused']],
  [
    ['vc', '-n', 'x', 'pause', ''],
    ['vm', 'vmi', '--dry-run', '-n', '--namespace', '--kubeconfig'],
  ],
];

describe('completion', () => {
  it.each(OFFERS)('bash offers for %j: %j', (words, offers) => {
    expect(bashOffers(bashCompletion(tiny), words)).toEqual(offers);
  });

  it.each(OFFERS)('zsh offers for %j: %j', (words, offers) => {
    expect(zshOffers(zshCompletion(tiny), words)).toEqual(offers);
  });

  it('writes a zsh function that compinit loads and registers', () => {
    const z = zshCompletion(tiny);
    expect(z.split('\n')[0]).toBe('#compdef vc');
    expect(z).toContain('compdef _vc vc');
    const registered = execFileSync('zsh', [
      '-fc',
      `autoload -U compinit; compinit -u -D\n${z}\nprint -r -- $_comps[vc]`,
    ]);
    expect(registered.toString().trim()).toBe('_vc');
  });

  it('reads a plain commander tree', () => {
    const c = new Command('x').option('-v, --verbose').option('--out <file>');
    c.command('go').option('--fast');
    expect(commandTree(c)).toEqual({
      name: 'x',
      flags: ['-v', '--verbose', '--out'],
      valueFlags: ['--out'],
      argChoices: [],
      commands: [{ name: 'go', flags: ['--fast'], valueFlags: [], argChoices: [], commands: [] }],
    });
  });
});
