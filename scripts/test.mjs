// `npm test`: static checks (each counted as one test), then jest (unit + integration), then the plain
// closing line CI reads: "N passed, N failed". Extra args go to jest.
import { spawnSync } from 'node:child_process';

const checks = [
  ['node version', ['node', 'scripts/check-node.mjs']],
  ['typecheck', ['npx', 'tsc', '-p', '.']],
  ['lint', ['npx', 'eslint', '--max-warnings', '0', 'cmd', 'lib', 'testenv', 'e2e', 'bench']],
  ['layering', ['node', 'scripts/check-layers.mjs']],
  ['import cycles', ['npx', 'madge', '--circular', '--extensions', 'ts', 'cmd', 'lib']],
  ['unused exports', ['npx', 'knip', '--no-progress']],
];
let passed = 0;
let failed = 0;
for (const [name, [cmd, ...args]] of checks) {
  const t = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  const ok = r.status === 0;
  console.error(`[test] ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - t) / 1000).toFixed(1)}s)`);
  if (ok) passed++;
  else failed++;
}
// Unit tests in parallel; integration tests in band (some kill and restart the shared API server).
const runs = [
  ['--selectProjects', 'unit'],
  ['--selectProjects', 'integration', '--runInBand'],
];
for (const projectArgs of runs) {
  const jest = spawnSync(
    process.execPath,
    ['scripts/jest.mjs', ...projectArgs, '--', ...process.argv.slice(2)],
    {
      stdio: ['inherit', 'pipe', 'inherit'],
      encoding: 'utf8',
      // The local-cluster files share one cluster, brought up once and taken down at the end of the run
      // (e2e/local/testing/cluster.ts), rather than each bringing its own up and down.
      env: { ...process.env, KV_LOCAL_CLUSTER_SHARE: '1' },
    },
  );
  const out = jest.stdout ?? '';
  const m = /^(\d+) passed, (\d+) failed$/m.exec(out);
  process.stdout.write(out.replace(/^\d+ passed, \d+ failed\n?$/m, ''));
  const p = m ? Number(m[1]) : 0;
  const f = m ? Number(m[2]) : 0;
  passed += p;
  failed += f === 0 && jest.status !== 0 ? 1 : f;
  console.error(`[test] jest ${projectArgs[1]}: ${p} passed, ${f} failed (exit ${jest.status})`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
