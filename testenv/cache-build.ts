/**
 * Runs one of the project's cached build scripts (testenv/build.sh, testenv/guests/build.sh): progress goes to
 * our stderr, and the script prints its cache dir on the last stdout line, which this returns.
 */
import { spawn } from 'node:child_process';
import { KvError } from '../lib/kernel/errors/errors.ts';

export async function runCacheBuild(script: string, args: readonly string[] = []): Promise<string> {
  const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const dir = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || dir === '') {
    throw new KvError('KV_ERR_CONFIG', `${script} failed (exit ${code}); its stderr says why`);
  }
  return dir;
}
