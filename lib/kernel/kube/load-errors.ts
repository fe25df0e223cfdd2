/**
 * What went wrong loading a kubeconfig, said without quoting the file. The YAML parser's messages carry a
 * snippet of the lines around the error (a token or a client key among them), and file errors carry only
 * a path: so the text is rebuilt from the kind of error, its position and its errno code, never from the
 * message of an error that may hold file content. Pure.
 */
import { getSystemErrorMessage } from 'node:util';

export interface LoadProblem {
  /** What is wrong, for "kubeconfig <file>: <text>". */
  readonly text: string;
  /** The error may be kept as the cause: it holds no file content (a file-system error). */
  readonly safeCause: boolean;
}

export const NOT_A_KUBECONFIG =
  'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)';

/**
 * The kubeconfig parser's checks of the entries (kubeconfig-file.ts): fixed texts naming a field path and,
 * for a wrong type, the type found. Matched whole, so no other error's message passes through.
 */
const ENTRY_CHECK =
  /^(?:current-context|(?:clusters|users|contexts)(?:\[\d+\])?(?:\.[a-z-]+)*) (?:is missing|must be an? [a-z]+, not (?:an? [a-z]+|null))$/;

/** The 1-based line and column where the `yaml` package's YAMLParseError starts. */
function yamlPosition(err: Error): { line: number; col: number } | undefined {
  const start = (err as { linePos?: readonly { line?: unknown; col?: unknown }[] }).linePos?.[0];
  return typeof start?.line === 'number' && typeof start.col === 'number'
    ? { line: start.line, col: start.col }
    : undefined;
}

/** `ENOENT: no such file or directory`, from the errno alone. */
export function errnoText(err: unknown): string | undefined {
  const { code, errno } = (err ?? {}) as { code?: unknown; errno?: unknown };
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  return typeof errno === 'number' ? `${code}: ${getSystemErrorMessage(errno)}` : code;
}

export function describeLoadProblem(err: unknown, file: string): LoadProblem {
  const errno = errnoText(err);
  if (errno !== undefined) {
    const path = (err as { path?: unknown }).path;
    const which = typeof path === 'string' && path !== file ? path : 'it';
    return { text: `cannot read ${which} (${errno})`, safeCause: true };
  }
  if (!(err instanceof Error)) return { text: NOT_A_KUBECONFIG, safeCause: false };
  if (err.name === 'YAMLParseError') {
    if ((err as { code?: unknown }).code === 'MULTIPLE_DOCS')
      return { text: 'holds more than one YAML document', safeCause: false };
    const at = yamlPosition(err);
    if (at !== undefined) {
      return {
        text: `not valid YAML (line ${at.line}, column ${at.col}): fix the file at that line`,
        safeCause: false,
      };
    }
    return { text: NOT_A_KUBECONFIG, safeCause: false };
  }
  if (ENTRY_CHECK.test(err.message)) return { text: err.message, safeCause: false };
  return { text: NOT_A_KUBECONFIG, safeCause: false };
}
