// Regenerates manifests/crds/*.yaml from the schemas in lib/kubevirt (npm run gen:crds).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CRD_MANIFEST_DIR, renderCrdManifests } from '../lib/operator/generate/crds/render.ts';

const dir = resolve(import.meta.dirname, '..', CRD_MANIFEST_DIR);
mkdirSync(dir, { recursive: true });
const files = renderCrdManifests();
for (const name of readdirSync(dir)) {
  if (name.endsWith('.yaml') && !files.has(name)) rmSync(join(dir, name));
}
for (const [name, content] of files) writeFileSync(join(dir, name), content);
process.stdout.write(`wrote ${files.size} CRDs to ${CRD_MANIFEST_DIR}\n`);
