/**
 * Version and git commit of this build: baked in by scripts/build.mjs in a bundle; otherwise package.json and
 * KV_GIT_COMMIT or the checkout's HEAD.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BuildInfo {
  version: string;
  gitCommit: string;
}

function gitCommit(): string {
  const fromEnv = process.env['KV_GIT_COMMIT'];
  if (fromEnv) return fromEnv;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/** Replaced with an object literal by the bundler (esbuild `define`); undeclared when run from source. */
declare const KV_BUILD_INFO: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (typeof KV_BUILD_INFO !== 'undefined') return KV_BUILD_INFO;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { version: pkg.version, gitCommit: gitCommit() };
}

export function versionLine(): string {
  const b = buildInfo();
  return `${b.version} (commit ${b.gitCommit})`;
}
