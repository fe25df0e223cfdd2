import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { tempRoot, type TempRoot } from './testing/servers.ts';

const repo = path.resolve(import.meta.dirname, '../..');
// Where scripts/gen-proto.sh lays each proto/ package, from the repository's root.
const GEN_DIRS = ['lib/rpc/gen', 'lib/handler/device-plugins/gen'];

/** Every file under the generated dirs below `root`, relative to `root`. */
async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const dir of GEN_DIRS) {
    const entries = await readdir(path.join(root, dir), { recursive: true, withFileTypes: true });
    for (const e of entries) if (e.isFile()) files.push(path.relative(root, path.join(e.parentPath, e.name)));
  }
  return files.sort();
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
    const out = root.dir;
    await promisify(execFile)('bash', [path.join(repo, 'scripts/gen-proto.sh'), out], { cwd: repo });
    const files = await listFiles(out);
    expect(files).toEqual([
      'lib/handler/device-plugins/gen/v1beta1/api.ts',
      'lib/rpc/gen/kubevirt/cmd/info/info.ts',
      'lib/rpc/gen/kubevirt/cmd/v1/cmd.ts',
      'lib/rpc/gen/kubevirt/notify/info/info.ts',
      'lib/rpc/gen/kubevirt/notify/v1/notify.ts',
    ]);
    expect(await listFiles(repo)).toEqual(files);
    for (const f of files) {
      const fresh = await readFile(path.join(out, f), 'utf8');
      const have = await readFile(path.join(repo, f), 'utf8');
      expect({ file: f, same: fresh === have }).toEqual({ file: f, same: true });
    }
  }, 60_000);
});
