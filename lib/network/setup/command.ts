/**
 * Running one short network tool (nsenter with ip, nft or sh) with its input on stdin, its output captured, and
 * a deadline. A failure is a NetnsCommandError carrying the command line and the tool's stderr: the inputs are
 * link, address and rule text, never secrets.
 */
import { spawn } from 'node:child_process';
import { KvError, type ErrorCode } from '../../kernel/errors/errors.ts';

const TIMEOUT_MS = 30_000;
const MAX_STDOUT = 4 << 20;
const MAX_STDERR = 8 << 10;

/** Runs argv with input on stdin (and fd, when given, as its descriptor 3); resolves with its stdout on exit 0. */
export type CommandRunner = (argv: readonly string[], input: string, fd?: number) => Promise<string>;

/** A tool that could not start (KV_ERR_CONFIG), ran out of time (KV_ERR_TIMEOUT) or failed (KV_ERR_INTERNAL). */
export class NetnsCommandError extends KvError {
  readonly command: readonly string[];
  /** What the tool wrote on stderr (at most 8 KiB); '' when it did not run to its end. */
  readonly stderr: string;
  constructor(
    code: ErrorCode,
    command: readonly string[],
    why: { detail: string; stderr?: string; cause?: unknown },
  ) {
    super(code, `${command.join(' ')}: ${why.detail}`, { cause: why.cause });
    this.command = command;
    this.stderr = why.stderr ?? '';
  }
}

/** The CommandRunner of a real child process, which we kill (SIGKILL) after timeoutMs. */
export function runCommand(
  argv: readonly string[],
  input: string,
  fd?: number,
  timeoutMs = TIMEOUT_MS,
): Promise<string> {
  const [bin = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe', fd ?? 'ignore'] });
    const deadline = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    let stdout = '';
    let stderr = '';
    // Piped, so never null; the fourth entry makes the types say "maybe".
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      if (stdout.length < MAX_STDOUT) stdout += s;
    });
    child.stderr?.setEncoding('utf8').on('data', (s: string) => {
      if (stderr.length < MAX_STDERR) stderr += s;
    });
    // A tool that exits before reading all of its input makes the write fail with EPIPE; its exit tells why.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    child.once('error', (err) => {
      clearTimeout(deadline);
      reject(
        new NetnsCommandError('KV_ERR_CONFIG', argv, { detail: `cannot start: ${err.message}`, cause: err }),
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      if (code === 0) {
        resolve(stdout);
      } else if (child.killed) {
        reject(
          new NetnsCommandError('KV_ERR_TIMEOUT', argv, { detail: `no exit within ${timeoutMs} ms`, stderr }),
        );
      } else {
        const detail = stderr.trim() || `exit ${code ?? signal}`;
        reject(new NetnsCommandError('KV_ERR_INTERNAL', argv, { detail, stderr }));
      }
    });
  });
}
