/**
 * Locates etcd and kube-apiserver through e2e/testenv/build.sh: it builds them from the pinned go.mod via
 * the Go module proxy on first use (progress on stderr, passed through) and prints the cache dir on the
 * last stdout line; a warm run returns at once.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { KvError } from '../../lib/kernel/errors/errors.ts';

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiServer: string;
}

export const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

/** Runs build.sh (stderr goes to ours) and returns the absolute binary paths. */
export async function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const cache = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || cache === '') {
    throw new KvError('KV_ERR_CONFIG', `${BUILD_SCRIPT} failed (exit ${code}); its stderr says why`);
  }
  return { etcd: join(cache, 'bin', 'etcd'), kubeApiServer: join(cache, 'bin', 'kube-apiserver') };
}
