/**
 * Runs the system's ssh or scp (found on the run's PATH) with the given arguments, on this run's terminal
 * when the run has the process's own streams (so ssh can prompt and allocate a tty), piped to the run's
 * streams otherwise; answers its exit code (128 + the signal number when a signal ended it). An interrupt
 * is passed on as SIGTERM. KubeVirt's wrapped.go runs exec.Command(ssh, args...).Run() the same way.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { KvError } from '../../kernel/errors/errors.ts';
import { codeOf, messageOf } from '../errors/transport-reason.ts';
import type { CliIo } from '../io.ts';

export interface LocalClientRun {
  readonly program: 'ssh' | 'scp';
  readonly argv: readonly string[];
  readonly io: CliIo;
}

function stdioOf(io: CliIo): StdioOptions {
  return [
    io.stdin === process.stdin ? 'inherit' : 'pipe',
    io.stdout === process.stdout ? 'inherit' : 'pipe',
    io.stderr === process.stderr ? 'inherit' : 'pipe',
  ];
}

function notFound(program: string, err: unknown): KvError {
  const text =
    codeOf(err) === 'ENOENT'
      ? `the local ${program} client was not found on PATH: install OpenSSH's client (virtctl-ts runs the system ${program})`
      : `cannot run the local ${program} client: ${messageOf(err)}`;
  return new KvError('KV_ERR_INTERNAL', text, { cause: err });
}

function pipeOut(from: Readable | null, to: Writable): void {
  from?.pipe(to, { end: false });
}

export function runLocalClient(r: LocalClientRun): Promise<number> {
  const { io } = r;
  const child = spawn(r.program, [...r.argv], { env: { ...io.env }, stdio: stdioOf(io) });
  if (child.stdin !== null) {
    child.stdin.on('error', () => undefined);
    io.stdin.pipe(child.stdin);
  }
  pipeOut(child.stdout, io.stdout);
  pipeOut(child.stderr, io.stderr);
  const onAbort = (): void => {
    child.kill('SIGTERM');
  };
  io.signal.addEventListener('abort', onAbort, { once: true });
  return new Promise<number>((resolve, reject) => {
    child.once('error', (err) => {
      reject(notFound(r.program, err));
    });
    child.once('close', (code, signal) => {
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  }).finally(() => {
    io.signal.removeEventListener('abort', onAbort);
    if (child.stdin !== null) io.stdin.unpipe(child.stdin);
  });
}
