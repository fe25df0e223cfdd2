/**
 * `virtctl-ts completion bash|zsh`: a small completion script generated from the command tree (commander has
 * none built in). It offers the commands first, then the flags of the command typed, the root's flags
 * everywhere, and the choices of a command's first argument (pause vm|vmi). Words after a flag that takes a
 * value are skipped when looking for the command. Pure over the tree; commandTree reads commander's objects.
 */
import type { Command } from 'commander';

export interface CompletionNode {
  readonly name: string;
  /** Every flag spelling: '-n', '--namespace', ... */
  readonly flags: readonly string[];
  /** The spellings that take a value. */
  readonly valueFlags: readonly string[];
  readonly argChoices: readonly string[];
  readonly commands: readonly CompletionNode[];
}

export function commandTree(cmd: Command): CompletionNode {
  const flags: string[] = [];
  const valueFlags: string[] = [];
  for (const o of cmd.options) {
    const names = [o.short, o.long].filter((n): n is string => n !== undefined);
    flags.push(...names);
    if (o.required || o.optional) valueFlags.push(...names);
  }
  return {
    name: cmd.name(),
    flags,
    valueFlags,
    argChoices: cmd.registeredArguments[0]?.argChoices ?? [],
    commands: cmd.commands.map(commandTree),
  };
}

const fnName = (root: CompletionNode): string => `_${root.name.replace(/[^A-Za-z0-9]/g, '_')}`;

function words(node: CompletionNode, root: CompletionNode): string {
  return [...node.argChoices, ...node.flags, ...root.flags].join(' ');
}

function cases(root: CompletionNode, indent: string, arrayOf: (w: string) => string): string[] {
  const top = [...root.commands.map((c) => c.name), ...root.flags].join(' ');
  return [
    `${indent}"") ${arrayOf(top)} ;;`,
    ...root.commands.map((c) => `${indent}${c.name}) ${arrayOf(words(c, root))} ;;`),
  ];
}

function valueCase(root: CompletionNode): string {
  return root.valueFlags.length === 0 ? '__none__' : root.valueFlags.join('|');
}

export function bashCompletion(root: CompletionNode): string {
  const fn = fnName(root);
  return [
    `# bash completion for ${root.name}: source <(${root.name} completion bash)`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="" i words=""',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    case "${COMP_WORDS[i]}" in',
    `      ${valueCase(root)}) ((i++)) ;;`,
    '      -*) ;;',
    '      *) cmd="${COMP_WORDS[i]}"; break ;;',
    '    esac',
    '  done',
    '  case "$cmd" in',
    ...cases(root, '    ', (w) => `words="${w}"`),
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    `complete -F ${fn} ${root.name}`,
    '',
  ].join('\n');
}

export function zshCompletion(root: CompletionNode): string {
  const fn = fnName(root);
  return [
    `#compdef ${root.name}`,
    `# zsh completion for ${root.name}: source <(${root.name} completion zsh)`,
    `${fn}() {`,
    '  local cmd="" i',
    '  local -a opts',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    case "${words[i]}" in',
    `      ${valueCase(root)}) ((i++)) ;;`,
    '      -*) ;;',
    '      *) cmd="${words[i]}"; break ;;',
    '    esac',
    '  done',
    '  case "$cmd" in',
    ...cases(root, '    ', (w) => `opts=(${w})`),
    '  esac',
    '  compadd -- "${opts[@]}"',
    '}',
    `compdef ${fn} ${root.name}`,
    '',
  ].join('\n');
}
