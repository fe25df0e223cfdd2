import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { tempRoot, type TempRoot } from './testing/servers.ts';

const repo = path.resolve(import.meta.dirname, '../..');
const committed = path.join(repo, 'lib/rpc/gen');

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('generated stubs', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = await tempRoot();
  });
  afterEach(async () => {
    await root.cleanup();
  });

  it('match a fresh generation from proto/ (run `npm run gen:proto` after editing proto/)', async () => {
    const out = path.join(root.dir, 'gen');
    await promisify(execFile)('bash', [path.join(repo, 'scripts/gen-proto.sh'), out], { cwd: repo });
    const files = await listFiles(out);
    expect(files).toEqual([
      'deviceplugin/v1beta1/api.ts',
      'kubevirt/cmd/info/info.ts',
      'kubevirt/cmd/v1/cmd.ts',
      'kubevirt/notify/info/info.ts',
      'kubevirt/notify/v1/notify.ts',
    ]);
    expect(await listFiles(committed)).toEqual(files);
    for (const f of files) {
      const fresh = await readFile(path.join(out, f), 'utf8');
      const have = await readFile(path.join(committed, f), 'utf8');
      expect({ file: f, same: fresh === have }).toEqual({ file: f, same: true });
    }
  }, 60_000);
});
