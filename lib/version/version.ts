/** Version and git commit of this build: KV_GIT_COMMIT (set when the image is built) or the checkout's HEAD. */
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

export function buildInfo(): BuildInfo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { version: pkg.version, gitCommit: gitCommit() };
}

export function versionLine(): string {
  const b = buildInfo();
  return `${b.version} (commit ${b.gitCommit})`;
}
