/**
 * `bin/virtctl-ts` as a person runs it, for the scenarios: a child process with a kubeconfig and a namespace
 * (`run`: its exit code and output), or a console session driven through its stdin and stdout (`console`).
 * Also a kubeconfig for another user (a client certificate from the cluster CA), to be refused by RBAC.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { certPaths } from '../../testenv/certs.ts';
import { issue } from '../../testenv/pki.ts';
import { componentKubeconfig } from '../local/kubeconfigs.ts';

export const VIRTCTL = fileURLToPath(new URL('../../bin/virtctl-ts', import.meta.url));
/** Ctrl+], virtctl's escape from the console. */
export const ESCAPE = '\x1d';

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Virtctl {
  run(...args: string[]): Promise<Run>;
  console(name: string): ConsoleSession;
}

interface ConsoleSession {
  /** Everything printed on stdout so far. */
  readonly output: () => string;
  readonly stderr: () => string;
  type(text: string): void;
  /** Ends the process (SIGTERM), connected or not. */
  stop(): void;
  /** Resolves once virtctl-ts said on stderr that it is connected. */
  connected(timeoutMs: number): Promise<void>;
  /** Resolves once stdout holds `text` after `from` (an offset into output()). */
  until(text: string, timeoutMs: number, from?: number): Promise<string>;
  readonly exited: Promise<number | null>;
}

export function virtctl(kubeconfig: string, namespace: string): Virtctl {
  const argv = (args: string[]): string[] => ['--kubeconfig', kubeconfig, '-n', namespace, ...args];
  return {
    run: (...args) =>
      new Promise((resolve, reject) => {
        const child = spawn(VIRTCTL, argv(args), { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => {
          resolve({ code, stdout, stderr });
        });
      }),
    console: (name) => {
      const child = spawn(VIRTCTL, argv(['console', name]), { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('latin1')));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      return {
        output: () => out,
        stderr: () => err,
        type: (text) => child.stdin.write(text),
        stop: () => child.kill('SIGTERM'),
        connected: async (timeoutMs) => {
          await waitFor(
            () => err.includes('Successfully connected'),
            () => `virtctl-ts console ${name} connected (stderr: ${err.slice(-300)})`,
            {
              timeoutMs,
              intervalMs: 100,
            },
          );
        },
        until: (text, timeoutMs, from = 0) =>
          waitFor(
            () => out.indexOf(text, from) >= 0 && out.slice(from),
            () =>
              `${text} on virtctl-ts console ${name} (stdout: …${out.slice(-300)}; stderr: ${err.slice(-300)})`,
            { timeoutMs, intervalMs: 100 },
          ),
        exited,
      };
    },
  };
}

/** A kubeconfig for `user` (no groups): the admin kubeconfig's server and CA, a client certificate of its own. */
export async function userKubeconfig(adminKubeconfig: string, user: string, dir: string): Promise<string> {
  const admin = parse(await readFile(adminKubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  const ca = certPaths(dirname(adminKubeconfig)).ca;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const pair = { cert: join(dir, `${user}.crt`), key: join(dir, `${user}.key`) };
  await issue(pair, { cn: user, usage: 'clientAuth' }, ca);
  const file = join(dir, `${user}.kubeconfig`);
  await writeFile(file, componentKubeconfig(admin.clusters[0]?.cluster.server ?? '', ca.cert, pair));
  return file;
}
