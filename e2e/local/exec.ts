/**
 * Host commands of the local cluster (ip, iptables, mount, openssl, ctr, the build scripts), run without a
 * shell. `run` throws a KvError naming the command and its stderr; `attempt` reports the exit code for
 * commands whose failure is an answer (a chain that is not there, a mount already gone).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KvError } from '../../lib/kernel/errors/errors.ts';

const exec = promisify(execFile);

/** /usr/sbin holds ip, iptables and mount helpers; a non-login root shell may not have it on PATH. */
const ENV = { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin`, LC_ALL: 'C' };

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export async function attempt(cmd: string, args: readonly string[], input?: string): Promise<Result> {
  try {
    const child = exec(cmd, args, { env: ENV, maxBuffer: 64 * 1024 * 1024 });
    if (input !== undefined) child.child.stdin?.end(input);
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') {
      throw new KvError('KV_ERR_CONFIG', `cannot run ${cmd}`, { cause: err });
    }
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export async function run(cmd: string, args: readonly string[], input?: string): Promise<string> {
  const r = await attempt(cmd, args, input);
  if (r.code !== 0) {
    throw new KvError('KV_ERR_CONFIG', `${cmd} ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}
