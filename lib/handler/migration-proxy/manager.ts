/**
 * The node's migration proxies (kubevirt pkg/virt-handler/migration-proxy migrationProxyManager, tag v1.6.2),
 * keyed by the migrating VMI's uid. On the target: one TLS listener per tunnel on a port of the range, each
 * ending at the target launcher Pod's socket; its port map goes into migrationState. On the source: one unix
 * socket per entry of that map in the source launcher Pod, each dialling the target. Starting again with the
 * same inputs keeps the running proxies; with other inputs it replaces them; stopping is idempotent. Calls run
 * one at a time. After `shutdown` no new proxies start (KubeVirt's graceful shutdown), and `close` stops all.
 */
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { launcherOnNode } from '../../rpc/index.ts';
import {
  libvirtSocketOnNode,
  parsePortMap,
  parseTargetAddress,
  portMap,
  sourceSockets,
  targetSockets,
  type TargetSocket,
} from './framing.ts';
import type { ProxyListener } from './listener.ts';
import { checkPortRange, DEFAULT_MIGRATION_PORT_RANGE, freePort, type PortRange } from './ports.ts';
import { startSourceListener } from './source.ts';
import { startTargetListener, type TargetListener } from './target.ts';
import { checkMigrationTls, type MigrationTls } from './tls.ts';

export interface MigrationProxyOptions {
  /** The kubelet's pods dir, where the launcher Pods' emptyDirs are. */
  readonly kubeletPodsDir: string;
  /** The node's migration address: the target listens there (KubeVirt's migration IP). */
  readonly host: string;
  /** Default DEFAULT_MIGRATION_PORT_RANGE. */
  readonly portRange?: PortRange;
  readonly tls: MigrationTls;
  readonly log: Logger;
  readonly clock?: Clock;
}

/** The target side of one migration. */
export interface TargetProxySpec {
  /** The target launcher Pod's uid. */
  readonly podUid: string;
  /** Whether the disks are copied (a third tunnel, libvirt's block migration port). */
  readonly blockMigration: boolean;
}

/** The source side of one migration, from the target's migrationState. */
export interface SourceProxySpec {
  /** The source launcher Pod's uid. */
  readonly podUid: string;
  /** migrationState.targetNodeAddress. */
  readonly targetAddress: string;
  /** migrationState.targetDirectMigrationNodePorts. */
  readonly ports: Readonly<Record<string, unknown>>;
}

interface Running<L extends ProxyListener> {
  /** What the proxies were started for: the same again is a no-op. */
  readonly inputs: string;
  readonly listeners: readonly L[];
  readonly map: Record<string, number>;
}

async function stopAll(listeners: readonly ProxyListener[]): Promise<void> {
  await Promise.all(listeners.map((l) => l.stop()));
}

function isBusy(err: unknown): boolean {
  return (err as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code === 'EADDRINUSE';
}

export class MigrationProxyManager {
  private readonly targets = new Map<string, Running<TargetListener>>();
  private readonly sources = new Map<string, Running<ProxyListener>>();
  private readonly range: PortRange;
  private readonly clock: Clock;
  private tls: MigrationTls;
  private shuttingDown = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: MigrationProxyOptions) {
    this.range = checkPortRange(o.portRange ?? DEFAULT_MIGRATION_PORT_RANGE);
    this.tls = checkMigrationTls(o.tls);
    this.clock = o.clock ?? realClock;
  }

  /** Runs `fn` after every call made before it (KubeVirt's manager lock). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private refuseWhenShuttingDown(): void {
    if (this.shuttingDown)
      throw new KvError('KV_ERR_SHUTDOWN', 'no new migration proxies while the handler shuts down');
  }

  /**
   * Listens for the migration `key` (the VMI uid) on the target and resolves the port map to publish as
   * migrationState.targetDirectMigrationNodePorts. KV_ERR_CONFIG when the range has too few free ports.
   */
  startTarget(key: string, spec: TargetProxySpec): Promise<Record<string, number>> {
    return this.serial(async () => {
      this.refuseWhenShuttingDown();
      const launcher = launcherOnNode(this.o.kubeletPodsDir, spec.podUid);
      const sockets = targetSockets(launcher, libvirtSocketOnNode(this.o.kubeletPodsDir, spec.podUid), {
        uid: key,
        blockMigration: spec.blockMigration,
      });
      const inputs = JSON.stringify(sockets);
      const current = this.targets.get(key);
      if (current?.inputs === inputs) return current.map;
      if (current !== undefined) {
        this.targets.delete(key);
        await stopAll(current.listeners);
      }
      const listeners = await this.listenAll(key, sockets);
      const map = portMap(
        listeners.map((l, i) => ({ nodePort: l.port, tunnelled: sockets[i]?.tunnelled ?? 0 })),
      );
      this.targets.set(key, { inputs, listeners, map });
      return map;
    });
  }

  private async listenAll(key: string, sockets: readonly TargetSocket[]): Promise<TargetListener[]> {
    const held = new Set([...this.targets.values()].flatMap((r) => r.listeners.map((l) => l.port)));
    const busy = new Set<number>();
    const started: TargetListener[] = [];
    try {
      for (const s of sockets) {
        const l = await this.listenOnFreePort(key, s, held, busy);
        held.add(l.port);
        started.push(l);
      }
      return started;
    } catch (err) {
      await stopAll(started);
      throw err;
    }
  }

  private async listenOnFreePort(
    key: string,
    s: TargetSocket,
    held: ReadonlySet<number>,
    busy: Set<number>,
  ): Promise<TargetListener> {
    for (;;) {
      const port = freePort(this.range, held, busy);
      try {
        return await startTargetListener({
          host: this.o.host,
          port,
          tls: () => this.tls,
          to: s.at,
          clock: this.clock,
          log: this.o.log.with({ uid: key }),
        });
      } catch (err) {
        if (!isBusy(err)) throw err;
        busy.add(port);
      }
    }
  }

  /** The port map of the target proxies of `key`, {} when none run (KubeVirt's GetTargetListenerPorts). */
  targetPorts(key: string): Record<string, number> {
    return { ...this.targets.get(key)?.map };
  }

  stopTarget(key: string): Promise<void> {
    return this.serial(async () => {
      const current = this.targets.get(key);
      this.targets.delete(key);
      if (current !== undefined) await stopAll(current.listeners);
    });
  }

  /**
   * Puts the source sockets of migration `key` in the source launcher Pod, each tunnelling to the target.
   * KV_ERR_INVALID when the target's address or port map is unusable; [] ports (not yet written) starts nothing.
   */
  startSource(key: string, spec: SourceProxySpec): Promise<void> {
    return this.serial(async () => {
      this.refuseWhenShuttingDown();
      const address = parseTargetAddress(spec.targetAddress);
      const bindings = parsePortMap(spec.ports);
      if (bindings.length === 0)
        throw new KvError('KV_ERR_INVALID', 'the target has not written its migration ports yet');
      const sockets = sourceSockets(launcherOnNode(this.o.kubeletPodsDir, spec.podUid), key, bindings);
      const inputs = JSON.stringify({ address, sockets });
      const current = this.sources.get(key);
      if (current?.inputs === inputs) return;
      if (current !== undefined) {
        this.sources.delete(key);
        await stopAll(current.listeners);
      }
      const listeners: ProxyListener[] = [];
      try {
        for (const s of sockets)
          listeners.push(
            await startSourceListener({
              at: s.at,
              targetAddress: address,
              targetPort: s.nodePort,
              tls: () => this.tls,
              clock: this.clock,
              log: this.o.log.with({ uid: key }),
            }),
          );
      } catch (err) {
        await stopAll(listeners);
        throw err;
      }
      this.sources.set(key, { inputs, listeners, map: portMap(bindings) });
    });
  }

  /** The source sockets of `key` as the node sees them, for messages (KubeVirt's GetSourceListenerFiles). */
  sourceSockets(key: string): string[] {
    return (this.sources.get(key)?.listeners ?? []).map((l) => l.address);
  }

  stopSource(key: string): Promise<void> {
    return this.serial(async () => {
      const current = this.sources.get(key);
      this.sources.delete(key);
      if (current !== undefined) await stopAll(current.listeners);
    });
  }

  /** Migrations with proxies running, both sides (KubeVirt's OpenListenerCount). */
  openListenerCount(): number {
    return this.targets.size + this.sources.size;
  }

  /** Connections open now over every proxy: both legs of each tunnel. */
  openConnectionCount(): number {
    const all = [...this.targets.values(), ...this.sources.values()].flatMap((r) => [...r.listeners]);
    return all.reduce((n, l) => n + l.connections(), 0);
  }

  /** New TLS material (rotated files) for the next handshakes and dials; KV_ERR_CONFIG keeps the old. */
  reloadTls(tls: MigrationTls): void {
    this.tls = checkMigrationTls(tls);
    for (const r of this.targets.values()) for (const l of r.listeners) l.setTls(this.tls);
  }

  /** No new proxies from now on; running ones keep going (KubeVirt's InitiateGracefulShutdown). */
  shutdown(): void {
    this.shuttingDown = true;
  }

  /** Stops every proxy of both sides. */
  close(): Promise<void> {
    this.shutdown();
    return this.serial(async () => {
      const all = [...this.targets.values(), ...this.sources.values()].flatMap((r) => [...r.listeners]);
      this.targets.clear();
      this.sources.clear();
      await stopAll(all);
    });
  }
}
