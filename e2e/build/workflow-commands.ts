/**
 * The project commands a GitHub workflow runs, read from its steps: npm scripts (`npm run x`, `npm test`), files
 * of the repository it executes (`bash e2e/kind/smoke.sh`, `./dev run`, `node scripts/x.mjs`) with the repository
 * files it hands them, and local actions (`uses: ./…`). Words holding a variable or a substitution are left
 * out (nothing to check before the run). Pure: the workflow's text in.
 */
import { parse } from 'yaml';

export type ProjectCommand =
  { readonly kind: 'npm script'; readonly name: string } | { readonly kind: 'file'; readonly path: string };

interface Workflow {
  jobs?: Record<string, { steps?: { run?: string; uses?: string }[] }>;
}

const NPM_SCRIPT_ALIASES: Readonly<Record<string, string>> = { test: 'test', t: 'test', start: 'start' };
const WRAPPERS = new Set(['sudo', 'env', 'exec', 'time', 'command']);
/** Programs whose first repository path argument is the file they run. */
const INTERPRETERS = new Set(['bash', 'sh', 'source', '.', 'node']);

/** The words of each simple command: quotes removed, split at `&&`, `||`, `;`, `|`, `&` and newlines. */
function commands(script: string): string[][] {
  const out: string[][] = [[]];
  let word: string | undefined;
  let quote = '';
  const endWord = (): void => {
    if (word !== undefined) out[out.length - 1]?.push(word);
    word = undefined;
  };
  for (const ch of script.replace(/\\\n/g, ' ').replace(/^\s*#.*$/gm, '')) {
    if (quote !== '') {
      if (ch === quote) quote = '';
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch) || ';&|\n'.includes(ch)) {
      endWord();
      if (';&|\n'.includes(ch)) out.push([]);
    } else word = (word ?? '') + ch;
  }
  endWord();
  return out.filter((c) => c.length > 0);
}

const resolved = (w: string): boolean => !/[$`*?]/.test(w);
/**
 * A path inside the repository (`./dev` too): relative, with a folder, not a flag, an assignment or an image
 * reference.
 */
const repoPath = (w: string): boolean => resolved(w) && /^(\.\/)?[\w.-]+(\/[\w.-]+)+\/?$/.test(w);
const file = (w: string): ProjectCommand => ({ kind: 'file', path: w.replace(/^\.\//, '') });

function npmCommand(args: string[]): ProjectCommand[] {
  const [verb, ...rest] = args;
  const name =
    verb === 'run' || verb === 'run-script'
      ? rest.find((w) => !w.startsWith('-'))
      : NPM_SCRIPT_ALIASES[verb ?? ''];
  return name !== undefined && resolved(name) ? [{ kind: 'npm script', name }] : [];
}

function commandOf(words: string[]): ProjectCommand[] {
  const start = words.findIndex((w) => !/^\w+=/.test(w) && !WRAPPERS.has(w));
  const [program = '', ...args] = start < 0 ? [] : words.slice(start);
  if (program === 'npm') return npmCommand(args);
  const at = INTERPRETERS.has(program) ? args.findIndex(repoPath) : -1;
  const [path = '', ...rest] = at < 0 ? [program, ...args] : args.slice(at);
  return repoPath(path) ? [file(path), ...rest.filter(repoPath).map(file)] : [];
}

/** Every project command of every step, in order. */
export function workflowCommands(text: string): ProjectCommand[] {
  const steps = Object.values((parse(text) as Workflow).jobs ?? {}).flatMap((j) => j.steps ?? []);
  return steps.flatMap((s) => [
    ...(s.uses?.startsWith('./') === true ? [file(s.uses)] : []),
    ...commands(s.run ?? '').flatMap(commandOf),
  ]);
}
