/** What a virtctl-ts run reads and writes: the process's streams and environment, or a test's. */
import type { Readable, Writable } from 'node:stream';

interface TtyOut extends Writable {
  readonly isTTY?: boolean;
}

export interface TtyIn extends Readable {
  readonly isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

export interface CliIo {
  readonly stdout: TtyOut;
  readonly stderr: TtyOut;
  readonly stdin: TtyIn;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborts on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** The command line that starts this CLI again (ssh's ProxyCommand); absent: read from the process. */
  readonly self?: readonly string[];
}

export function writeLine(out: Writable, line: string): void {
  out.write(`${line}\n`);
}
