/**
 * Locates etcd and kube-apiserver through testenv/build.sh: it builds them from the pinned go.mod via
 * the Go module proxy on first use (progress on stderr, passed through) and prints the cache dir on the
 * last stdout line; a warm run returns at once.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { runCacheBuild } from './cache-build.ts';

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiServer: string;
}

const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

/** Runs build.sh (stderr goes to ours) and returns the absolute binary paths. */
export async function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  const cache = await runCacheBuild(BUILD_SCRIPT);
  return { etcd: join(cache, 'bin', 'etcd'), kubeApiServer: join(cache, 'bin', 'kube-apiserver') };
}

/** kubectl from the same pinned module (built with the node binaries: `build.sh node`). */
export async function kubectlBinary(): Promise<string> {
  return join(await runCacheBuild(BUILD_SCRIPT, ['node']), 'bin', 'kubectl');
}
