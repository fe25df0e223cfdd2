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

/** client-node's own checks of the entries: fixed texts naming a field path. */
const ENTRY_CHECK = /^(clusters|users|contexts)\[\d+\]\.[a-z.-]+ is missing$/;

interface YamlMark {
  readonly line: number;
  readonly column: number;
}

function yamlMark(err: Error): YamlMark | undefined {
  const mark = (err as { mark?: { line?: unknown; column?: unknown } }).mark;
  return typeof mark?.line === 'number' && typeof mark.column === 'number'
    ? { line: mark.line, column: mark.column }
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
  if (err.name === 'YAMLException') {
    const mark = yamlMark(err);
    if (mark !== undefined) {
      const at = `line ${mark.line + 1}, column ${mark.column + 1}`;
      return { text: `not valid YAML (${at}): fix the file at that line`, safeCause: false };
    }
    if (String((err as { reason?: unknown }).reason).includes('found more'))
      return { text: 'holds more than one YAML document', safeCause: false };
    return { text: NOT_A_KUBECONFIG, safeCause: false };
  }
  if (ENTRY_CHECK.test(err.message)) return { text: err.message, safeCause: false };
  return { text: NOT_A_KUBECONFIG, safeCause: false };
}
