// Bundles the entrypoints for the image: dist/virt.mjs (`virt <role>`, run through the dist/virt wrapper) and
// dist/virtctl-ts.mjs, ESM with code splitting so each role loads only its own chunks (cmd/main.ts imports a
// role's module when it runs).
// Version and commit are baked in; packages are bundled, so the image needs only node and dist/.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { LAUNCHER_NODE_FLAGS } from '../lib/launcher/node-flags.ts';
import { buildInfo } from '../lib/version/version.ts';

const root = resolve(import.meta.dirname, '..');
const outdir = resolve(root, process.argv[2] ?? 'dist');
// From source (KV_GIT_COMMIT or the checkout's HEAD); the bundle then carries it as a literal.
const { version, gitCommit } = buildInfo();

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { virt: join(root, 'cmd/main.ts'), 'virtctl-ts': join(root, 'cmd/virtctl.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  define: { KV_BUILD_INFO: JSON.stringify({ version, gitCommit }) },
  // CommonJS packages inside an ES module bundle still call require() for node built-ins.
  banner: {
    js: "import { createRequire as __kvRequire } from 'node:module'; const require = __kvRequire(import.meta.url);",
  },
  legalComments: 'external',
  logLevel: 'warning',
});
// The image's entrypoint: node on PATH runs the bundle, with the launcher's own node flags for that role.
const wrapper = `#!/bin/sh
# virt <role>: runs dist/virt.mjs with node; the launcher (one per VM) gets ${LAUNCHER_NODE_FLAGS.join(' ')}.
dir=$(dirname "$(readlink -f "$0")")
if [ "$1" = launcher ]; then exec node ${LAUNCHER_NODE_FLAGS.join(' ')} "$dir/virt.mjs" "$@"; fi
exec node "$dir/virt.mjs" "$@"
`;
writeFileSync(join(outdir, 'virt'), wrapper);
chmodSync(join(outdir, 'virt'), 0o755);
console.log(`[build] ${outdir}: virt (wrapper), virt.mjs, virtctl-ts.mjs (${version}, commit ${gitCommit})`);
