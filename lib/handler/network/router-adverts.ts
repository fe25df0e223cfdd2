/**
 * One radvd per launcher Pod whose masquerade bridge advertises IPv6 (lib/network/setup/router-adverts.ts),
 * run by the handler inside the Pod's network namespace: a raw ICMPv6 socket needs CAP_NET_RAW, which neither
 * Node nor the launcher (uid 107, no capabilities but NET_BIND_SERVICE under restricted Pod security) has. The
 * chain is nsenter → setpriv → radvd, each exec'd, so radvd is the handler's child: `--pdeathsig KILL` ends it
 * with the handler, however the handler ends, and nothing keeps a Pod's namespace once its handler is gone.
 * A handler that starts again starts radvd again on its first look at the VMI. Its configuration and pid file
 * live in the handler's own directory `dir`, never in the tenant's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../kernel/log/log.ts';
import type { OpenNetns } from '../../network/setup/pod-netns.ts';

const UID = /^[0-9a-f-]{1,64}$/;

export interface RouterAdvertisersOptions {
  readonly log: Logger;
  /** Where the configurations and pid files go: the handler's own directory (mkdtemp), 0700. */
  readonly dir: string;
  /** The program (default `radvd` on PATH). */
  readonly radvd?: string;
}

export class RouterAdvertisers {
  private readonly running = new Map<string, ChildProcess>();

  constructor(private readonly o: RouterAdvertisersOptions) {}

  /** Starts radvd with config in the namespace of launcher Pod podUid, unless it runs there already. */
  async start(podUid: string, ns: OpenNetns, config: string): Promise<void> {
    if (this.running.has(podUid)) return;
    if (!UID.test(podUid)) throw new Error(`${JSON.stringify(podUid)} is not a Pod uid`);
    const conf = join(this.o.dir, `${podUid}.conf`);
    await writeFile(conf, config, { mode: 0o600 });
    const argv = ['--net=/proc/self/fd/3', '--', 'setpriv', '--pdeathsig', 'KILL', '--'];
    const radvd = [this.o.radvd ?? 'radvd', '-n', '-C', conf, '-p', join(this.o.dir, `${podUid}.pid`)];
    const child = spawn('nsenter', [...argv, ...radvd, '-m', 'stderr_clean'], {
      stdio: ['ignore', 'ignore', 'pipe', ns.fd],
    });
    const log = this.o.log.with({ pod: podUid });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n'))
        if (line.trim() !== '') log.v(2).info('radvd', { line: line.slice(0, 200) });
    });
    child.once('error', (err) => {
      log.error('cannot start radvd: the guest gets no IPv6 router advertisements', { reason: err.message });
    });
    child.once('exit', (code, signal) => {
      if (this.running.get(podUid) !== child) return;
      this.running.delete(podUid);
      log.warning('radvd ended: the guest gets no IPv6 router advertisements', { code, signal });
    });
    this.running.set(podUid, child);
    log.info('radvd started', { pid: child.pid });
  }

  /** Whether radvd runs for the Pod. */
  has(podUid: string): boolean {
    return this.running.has(podUid);
  }

  /** Stops the Pod's radvd, if any, and removes its files. */
  async stop(podUid: string): Promise<void> {
    const child = this.running.get(podUid);
    this.running.delete(podUid);
    child?.kill('SIGTERM');
    if (!UID.test(podUid)) return;
    await rm(join(this.o.dir, `${podUid}.conf`), { force: true });
    await rm(join(this.o.dir, `${podUid}.pid`), { force: true });
  }

  /** Stops every radvd (the handler is going). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((uid) => this.stop(uid)));
  }
}
