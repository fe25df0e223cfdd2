// The layering the README's Layout draws, checked on every import of every .ts file under cmd, lib, testenv, e2e
// and bench:
// - lib/kernel imports nothing of ours but lib/kernel (and lib/version);
// - the shared layers import only downward: kernel ← rename ← kubevirt ← rpc, kernel ← libvirt, and
//   kernel, kubevirt ← network;
// - a role (lib/<role>/) imports the shared layers and itself, never another role;
// - generated code (a gen/ folder: lib/rpc/gen, lib/handler/device-plugins/gen) is private to the folder that
//   holds it; nothing imports @kubernetes/client-node (lib/kernel/kube loads kubeconfigs itself);
// - no code that runs in a role (lib/ and cmd/ but tests and testing/ folders) imports undici: outgoing HTTP
//   goes over node:http (lib/kernel/http/keep-alive-client.ts), which costs no extra memory per process;
// - testenv/ (the test infrastructure: control plane, certificates, libvirt daemon, guests) imports lib/ and
//   itself, never e2e/, cmd/ or bench/;
// - tests (*.test.ts, *.itest.ts) and test helpers (testing/ folders) follow their folder's rule, and may
//   also use testenv/; nothing under lib/ imports e2e/; cmd, e2e and bench may import any of lib and testenv.
// `node scripts/check-layers.mjs [--root DIR]` prints each violation as `file: imports spec (rule)` and exits 1
// when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const SHARED = {
  kernel: [],
  version: [],
  rename: ['kernel'],
  kubevirt: ['kernel', 'rename'],
  rpc: ['kernel', 'rename', 'kubevirt'],
  libvirt: ['kernel'],
  network: ['kernel', 'kubevirt'],
};
export const ROLES = ['controller', 'launcher', 'rewriter', 'handler', 'apiserver', 'operator', 'pr-helper', 'virtctl'];

const IMPORT =
  /^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function* tsFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** '<area>' for a repo-relative path under lib/<area>/, else '/' + its top folder ('/cmd', '/testenv', '/e2e', …). */
function areaOf(rel) {
  const parts = rel.split('/');
  return parts[0] === 'lib' ? (parts[1] ?? '') : `/${parts[0]}`;
}

const isTestCode = (rel) => /\.(i?test)\.ts$/.test(rel) || rel.split('/').includes('testing');

/** Why `rel` may not import `target` (both repo-relative), or undefined when it may. */
export function violation(rel, target) {
  const gen = target.indexOf('/gen/');
  if (gen > 0 && !rel.startsWith(target.slice(0, gen + 1))) {
    return `${target.slice(0, gen)}/gen is private to ${target.slice(0, gen)}`;
  }
  const from = areaOf(rel);
  const to = areaOf(target);
  if (from === '/testenv') {
    return to === '/testenv' || !to.startsWith('/') ? undefined : `testenv imports only lib/ and testenv/`;
  }
  if (from.startsWith('/') || from === to) return undefined;
  if (to === '/testenv' && isTestCode(rel)) return undefined;
  if (to.startsWith('/')) return `lib/${from} imports nothing from ${to.slice(1)}/`;
  if (from in SHARED) {
    if (SHARED[from].includes(to) || to === 'version') return undefined;
    return `lib/${from} imports only ${[from, ...SHARED[from]].map((a) => `lib/${a}`).join(', ')}`;
  }
  if (ROLES.includes(to)) return `roles never import roles (lib/${from} → lib/${to})`;
  if (to in SHARED) return undefined;
  return `lib/${to} is not a layer the README draws`;
}

/** Every violation in the tree at root, as `file: imports spec (rule)`. */
export function checkLayers(root) {
  const out = [];
  for (const top of ['cmd', 'lib', 'testenv', 'e2e', 'bench']) {
    for (const file of tsFiles(join(root, top))) {
      const rel = relative(root, file);
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3];
        if (spec === '@kubernetes/client-node') {
          out.push(`${rel}: imports ${spec} (nothing may: lib/kernel/kube loads kubeconfigs itself)`);
        }
        if (spec === 'undici' && /^(lib|cmd)\//.test(rel) && !isTestCode(rel)) {
          out.push(`${rel}: imports ${spec} (only tests may: roles send HTTP over node:http)`);
        }
        if (!spec.startsWith('.')) continue;
        const why = violation(rel, relative(root, resolve(dirname(file), spec)));
        if (why !== undefined) out.push(`${rel}: imports ${spec} (${why})`);
      }
    }
  }
  return out;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const i = process.argv.indexOf('--root');
  const root = i > 0 ? resolve(process.argv[i + 1] ?? '.') : resolve(import.meta.dirname, '..');
  const found = checkLayers(root);
  for (const v of found) console.error(v);
  process.exit(found.length === 0 ? 0 : 1);
}
