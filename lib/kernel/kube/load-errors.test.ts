import { describe, expect, it } from '@jest/globals';
import { YAMLParseError, type ErrorCode } from 'yaml';
import { describeLoadProblem } from './load-errors.ts';

type LinePos = YAMLParseError['linePos'];

/** The `yaml` package's error, its message quoting the file as the real one does. */
const yamlError = (code: ErrorCode, linePos?: LinePos): Error =>
  Object.assign(new YAMLParseError([40, 41], code, 'at line 3:\n\n 3 |     token: kv-secret\n---^'), {
    linePos,
  });
const fsError = (code: string, errno: number, path: string): Error =>
  Object.assign(new Error(`${code}: open '${path}'`), { code, errno, path });

describe('describeLoadProblem', () => {
  it.each<[string, unknown, string, boolean]>([
    [
      'a YAML error with a position',
      yamlError('BAD_INDENT', [
        { line: 3, col: 5 },
        { line: 3, col: 6 },
      ]),
      'not valid YAML (line 3, column 5): fix the file at that line',
      false,
    ],
    [
      'a YAML error without a position',
      yamlError('IMPOSSIBLE'),
      'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)',
      false,
    ],
    [
      'two documents',
      yamlError('MULTIPLE_DOCS', [
        { line: 2, col: 1 },
        { line: 4, col: 1 },
      ]),
      'holds more than one YAML document',
      false,
    ],
    [
      'the file missing',
      fsError('ENOENT', -2, '/k'),
      'cannot read it (ENOENT: no such file or directory)',
      true,
    ],
    [
      'a token-file missing',
      fsError('ENOENT', -2, '/t'),
      'cannot read /t (ENOENT: no such file or directory)',
      true,
    ],
    ['an entry check', new Error('users[1].name is missing'), 'users[1].name is missing', false],
    [
      'anything else',
      new TypeError("Cannot read properties of null (reading 'clusters')"),
      'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)',
      false,
    ],
    [
      'a thrown string',
      'token: kv-secret',
      'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)',
      false,
    ],
  ])('%s', (_name, err, text, safeCause) => {
    const problem = describeLoadProblem(err, '/k');
    expect(problem).toEqual({ text, safeCause });
    expect(problem.text).not.toContain('kv-secret');
  });
});
