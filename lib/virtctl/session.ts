/**
 * One run's shared pieces: the streams, the clock, and the connection made from the global flags on first use
 * (completion and `version --client` never read a kubeconfig), closed when the run ends.
 */
import type { Command } from 'commander';
import type { Clock } from '../kernel/clock.ts';
import { VirtctlClient, type GlobalFlags } from './client.ts';
import { writeLine, type CliIo } from './io.ts';
import { withoutUserinfo } from './server-url.ts';
import { KubevirtReader } from './kubevirt-reader.ts';

export class Session {
  private made: VirtctlClient | undefined;
  private madeReader: KubevirtReader | undefined;
  /** The namespace used, once known (for error hints). */
  namespace = 'default';
  /** The exit code of a command that ran a program (ssh, scp) and succeeds with that program's code. */
  exitCode: number | undefined;

  constructor(
    readonly io: CliIo,
    readonly clock: Clock,
  ) {}

  client(cmd: Command): VirtctlClient {
    if (this.made === undefined) {
      const warn = (text: string): void => {
        writeLine(this.io.stderr, `Warning: ${withoutUserinfo(text)}`);
      };
      this.made = VirtctlClient.fromFlags(
        cmd.optsWithGlobals<GlobalFlags>(),
        this.io.env,
        this.io.signal,
        warn,
      );
      this.namespace = this.made.namespace;
    }
    return this.made;
  }

  reader(cmd: Command): KubevirtReader {
    this.madeReader ??= new KubevirtReader(this.client(cmd));
    return this.madeReader;
  }

  out(line: string): void {
    this.io.stdout.write(`${line}\n`);
  }

  async close(): Promise<void> {
    await this.made?.close();
  }
}
