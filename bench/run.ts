/**
 * `npm run bench [-- name-filter]`: runs every bench/*.bench.ts against one real control plane (started here,
 * or $KUBECONFIG when set) and prints one table. Each bench file default-exports
 * `(ctx: BenchContext) => Promise<BenchRow[]>`; ratios are measured inside one run, side by side.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startControlPlane } from '../testenv/controlplane.ts';
import { formatTable, type BenchContext, type BenchFn, type BenchRow } from './table.ts';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();
if (files.length === 0) {
  console.error(`no bench file matches "${filter}" in ${here}`);
  process.exit(1);
}

const external = process.env['KUBECONFIG'];
// No dir given: the control plane makes its own temp dir and removes it (etcd data included) on stop().
const cp = external ? undefined : await startControlPlane({});
const ctx: BenchContext = {
  kubeconfigPath: external ?? cp?.kubeconfigPath ?? '',
  log: (msg) => {
    console.error(`[bench] ${msg}`);
  },
};
console.error(
  `[bench] control plane: ${external ? `external ($KUBECONFIG=${external})` : `local, ${cp?.dir ?? ''}`}`,
);

async function runOne(file: string): Promise<{ file: string; row: BenchRow }[]> {
  ctx.log(`running ${file}`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: BenchFn };
  return (await mod.default(ctx)).map((row) => ({ file, row }));
}

const rows: { file: string; row: BenchRow }[] = [];
let failed = 0;
try {
  for (const file of files) {
    try {
      rows.push(...(await runOne(file)));
    } catch (err) {
      failed++;
      console.error(`[bench] ${file} failed:`, err);
    }
  }
} finally {
  await cp?.stop();
}
console.log(formatTable(rows));
process.exit(failed === 0 ? 0 : 1);
