// Layering rules that ESLint path patterns express badly:
// - lib/kernel/** (tests aside) imports only lib/kernel/**, node: built-ins and packages;
// - only lib/kernel/kube/** imports @kubernetes/client-node.
// Prints each violation as file: import, exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function* tsFiles(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

const violations = [];
for (const top of ['cmd', 'lib', 'e2e', 'bench']) {
  for (const file of tsFiles(join(root, top))) {
    const rel = relative(root, file);
    const isTest = /\.(i?test)\.ts$/.test(rel);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec === '@kubernetes/client-node' && !rel.startsWith('lib/kernel/kube/')) {
        violations.push(`${rel}: imports ${spec} (only lib/kernel/kube may)`);
      }
      if (rel.startsWith('lib/kernel/') && !isTest && spec.startsWith('.')) {
        const target = relative(root, resolve(dirname(file), spec));
        if (!target.startsWith('lib/kernel/')) violations.push(`${rel}: imports ${spec} (lib/kernel imports only lib/kernel)`);
      }
    }
  }
}
for (const v of violations) console.error(v);
process.exit(violations.length === 0 ? 0 : 1);
