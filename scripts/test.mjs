// `npm test`: static checks (each counted as one test), then jest (unit + integration), then the plain
// closing line CI reads: "N passed, N failed". Extra args go to jest.
import { spawn, spawnSync } from 'node:child_process';

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
// The local-cluster files share one cluster, brought up once and taken down at the end of their run
// (e2e/local/testing/cluster.ts), rather than each bringing its own up and down.
const SHARE = { KV_LOCAL_CLUSTER_SHARE: '1' };

/** One jest run; resolves with its counts (a run that failed without failing tests counts one failure). */
function jest(name, projectArgs, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/jest.mjs', ...projectArgs, '--', ...extra], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('close', (code) => {
      const m = /^(\d+) passed, (\d+) failed$/m.exec(out);
      process.stdout.write(out.replace(/^\d+ passed, \d+ failed\n?$/m, ''));
      const p = m ? Number(m[1]) : 0;
      const f = m ? Number(m[2]) : 0;
      console.error(`[test] jest ${name}: ${p} passed, ${f} failed (exit ${code})`);
      resolve({ passed: p, failed: f === 0 && code !== 0 ? 1 : f });
    });
  });
}

const extra = process.argv.slice(2);
// Unit tests in parallel. Integration tests in band (some kill and restart their API server); with no filter
// given, the file that compares the whole host before and after the cluster runs alone first, then the other
// local-cluster files (e2e/, mostly waiting on the cluster) and the rest (their own control plane) run side by
// side, as two jest runs.
const results = [await jest('unit', ['--selectProjects', 'unit'], {})];
const integration = ['--selectProjects', 'integration', '--runInBand'];
const alone = 'e2e/local/clean-host';
if (extra.length > 0) results.push(await jest('integration', integration, SHARE));
else {
  results.push(await jest('integration (clean host)', [...integration, '--testPathPatterns', alone], SHARE));
  results.push(
    ...(await Promise.all([
      jest(
        'integration (local cluster)',
        [...integration, '--testPathPatterns', '/e2e/', '--testPathIgnorePatterns', alone],
        SHARE,
      ),
      jest('integration (own control plane)', [...integration, '--testPathIgnorePatterns', '/e2e/'], {}),
    ])),
  );
}
for (const r of results) {
  passed += r.passed;
  failed += r.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
