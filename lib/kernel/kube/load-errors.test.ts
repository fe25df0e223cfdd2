import { describe, expect, it } from '@jest/globals';
import { describeLoadProblem } from './load-errors.ts';

const yamlError = (reason: string, mark?: { line: number; column: number }): Error =>
  Object.assign(new Error(`${reason}\n\n 3 |     token: kv-secret\n---^`), {
    name: 'YAMLException',
    reason,
    mark,
  });
const fsError = (code: string, errno: number, path: string): Error =>
  Object.assign(new Error(`${code}: open '${path}'`), { code, errno, path });

describe('describeLoadProblem', () => {
  it.each<[string, unknown, string, boolean]>([
    [
      'a YAML error with a position',
      yamlError('bad indentation of a mapping entry', { line: 2, column: 4 }),
      'not valid YAML (line 3, column 5): fix the file at that line',
      false,
    ],
    [
      'an empty document',
      yamlError('expected a document, but the input is empty'),
      'not a kubeconfig (expected a YAML mapping with clusters, users and contexts)',
      false,
    ],
    [
      'two documents',
      yamlError('expected a single document in the stream, but found more'),
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
