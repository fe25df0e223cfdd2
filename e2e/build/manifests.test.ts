/**
 * manifests/ is what the generators render today (`npm run gen:manifests`): every generated file committed as
 * rendered, and no file left in the generated folders that the generators no longer write.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GENERATED_DIRS, MANIFEST_FILES, renderManifests } from '../../lib/operator/generate/manifests.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const fresh = renderManifests(readFileSync(join(REPO, MANIFEST_FILES.exampleVm), 'utf8'));

describe('manifests/ (run `npm run gen:manifests` when this fails)', () => {
  it('holds every generated file as rendered', () => {
    const differing = [...fresh]
      .filter(
        ([path, text]) => !existsSync(join(REPO, path)) || readFileSync(join(REPO, path), 'utf8') !== text,
      )
      .map(([path]) => path);
    expect(differing).toEqual([]);
  });

  it('holds nothing else in the generated folders', () => {
    const stale = GENERATED_DIRS.flatMap((dir) =>
      readdirSync(join(REPO, dir)).map((name) => `${dir}/${name}`),
    ).filter((path) => !fresh.has(path));
    expect(stale).toEqual([]);
  });
});
