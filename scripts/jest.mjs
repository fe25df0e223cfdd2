// Runs jest (ESM mode) with the given args, then prints the plain closing line CI reads:
// "N passed, N failed" (jest's own summary is not read by the workplace CI).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'kv-jest-'));
const out = join(dir, 'result.json');
const args = [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  'node_modules/jest/bin/jest.js',
  '--json',
  `--outputFile=${out}`,
  ...process.argv.slice(2),
];
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
} else {
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status ?? 1);
