// Regenerates manifests/ (npm run gen:manifests): the CRDs, the operator's install, the example KubeVirt
// resource and the stored twin of the example VM, from lib/operator/generate/manifests.ts. Stale files in the
// folders that hold only generated files are removed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GENERATED_DIRS, MANIFEST_FILES, renderManifests } from '../lib/operator/generate/manifests.ts';

const repo = resolve(import.meta.dirname, '..');
const files = renderManifests(readFileSync(join(repo, MANIFEST_FILES.exampleVm), 'utf8'));
for (const dir of GENERATED_DIRS) {
  mkdirSync(join(repo, dir), { recursive: true });
  for (const name of readdirSync(join(repo, dir))) {
    if (!files.has(`${dir}/${name}`)) rmSync(join(repo, dir, name));
  }
}
for (const [path, content] of files) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), content);
}
process.stdout.write(`wrote ${files.size} files under manifests/\n`);
