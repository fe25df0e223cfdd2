/**
 * Golden files (kubevirt converter_test.go + testdata/): a test renders its output as text and compares it, as
 * an exact string, with a file in the test's sibling testdata/ folder. UPDATE_GOLDEN=1 rewrites the files
 * instead of failing; a missing golden fails.
 */
import { expect } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Goldens {
  /** Absolute path of name in the testdata/ folder. */
  path(name: string): string;
  /** The file's text (inputs beside the goldens). */
  read(name: string): string;
  /** Compares text with the golden file name (or rewrites it under UPDATE_GOLDEN=1). */
  expectText(name: string, text: string): void;
  /** The same for a value, as 2-space JSON with a final newline. */
  expectJson(name: string, value: unknown): void;
}

/** The goldens in testdata/ beside the test file whose import.meta.url is given. */
export function goldens(testUrl: string): Goldens {
  const dir = path.join(path.dirname(fileURLToPath(testUrl)), 'testdata');
  const at = (name: string): string => path.join(dir, name);
  const expectText = (name: string, text: string): void => {
    const file = at(name);
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, text);
    expect(existsSync(file) ? file : `missing golden ${file} (UPDATE_GOLDEN=1 writes it)`).toBe(file);
    expect(text).toBe(readFileSync(file, 'utf8'));
  };
  return {
    path: at,
    read: (name) => readFileSync(at(name), 'utf8'),
    expectText,
    expectJson: (name, value): void => {
      expectText(name, `${JSON.stringify(value, null, 2)}\n`);
    },
  };
}
