/**
 * Test support: one in-process virtctl-ts run with captured stdout/stderr, a stdin the test writes to, and
 * an abort it triggers (SIGINT stand-in). Answers the exit code and what was printed.
 */
import { PassThrough } from 'node:stream';
import type { CliIo } from '../io.ts';
import { runVirtctl } from '../program.ts';

export interface CliRun {
  readonly done: Promise<{ code: number; stdout: string; stderr: string }>;
  readonly stdin: PassThrough;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly abort: () => void;
}

export function startCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  extra: Pick<CliIo, 'self'> = {},
): CliRun {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const stop = new AbortController();
  const done = runVirtctl(args, {
    io: { stdout, stderr, stdin, env: { HOME: '/nonexistent', ...env }, signal: stop.signal, ...extra },
  }).then((code) => ({ code, stdout: out, stderr: err }));
  return {
    done,
    stdin,
    stdout: () => out,
    stderr: () => err,
    abort: (): void => {
      stop.abort();
    },
  };
}

export function runCli(
  args: readonly string[],
  env?: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return startCli(args, env).done;
}
