/**
 * The launcher's own libvirt: virtlogd first (libvirtd needs it for QEMU's logs), then libvirtd in session
 * mode, both with every directory under --root (layout.ts) and run as the daemon user (identity.ts). No
 * systemd: started by hand, stopped by PID. A QEMU capabilities cache directory may be shared between
 * launchers (libvirt probes each QEMU binary for seconds otherwise; it validates every cached file, so a
 * seeded cache is never wrong, only faster). When we are root, /dev/kvm is first made usable by the daemon
 * user (kvm-device.ts). Stopping also stops the QEMU processes it left: domains and capability probes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { cmdlineShows } from '../../kernel/process/proc.ts';
import { spawnProcess, stopChild, type ChildHandle } from '../../kernel/process/spawn.ts';
import { stopProcess } from '../../kernel/process/stop.ts';
import { daemonIdentity, giveTree, type Identity } from './identity.ts';
import { ensureKvmDeviceAccess } from './kvm-device.ts';
import { libvirtLayout, type LibvirtLayout } from './layout.ts';
import { openDaemonLog, prepareLibvirtFiles, saveCaps } from './libvirt-files.ts';
import { findHugetlbfs } from './qemu-conf.ts';
import { qemuPids } from './qemu-pids.ts';

const LIBVIRTD = '/usr/sbin/libvirtd';
const VIRTLOGD = '/usr/sbin/virtlogd';
export const SESSION_URI = 'qemu:///session';

export interface LauncherLibvirtOptions {
  readonly root: string;
  readonly log: Logger;
  /** Shared QEMU capabilities cache (seeded before start, saved back on stop). */
  readonly capsCache?: string;
  readonly startTimeoutMs?: number;
  readonly clock?: Clock;
}

export interface LauncherLibvirt {
  readonly layout: LibvirtLayout;
  readonly identity: Identity;
  readonly socketPath: string;
  readonly uri: string;
  readonly libvirtdPid: number;
  readonly virtlogdPid: number;
  /** Stops libvirtd, any QEMU it left running, then virtlogd. */
  stop(): Promise<void>;
}

const leftIfStuck = (err: unknown): void => {
  if (!(err instanceof KvError && err.code === 'KV_ERR_TIMEOUT')) throw err;
};

const canConnect = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect({ path });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      resolve(false);
    });
  });

async function waitSocket(
  path: string,
  daemon: ChildHandle,
  o: { timeoutMs: number; clock: Clock; probe: boolean },
): Promise<void> {
  const deadline = o.clock.now() + o.timeoutMs;
  while (!(existsSync(path) && (!o.probe || (await canConnect(path))))) {
    if (!daemon.running()) throw new KvError('KV_ERR_CONFIG', `${daemon.bin} exited before serving ${path}`);
    if (o.clock.now() > deadline) {
      throw new KvError('KV_ERR_TIMEOUT', `${daemon.bin}: no socket ${path} after ${o.timeoutMs} ms`);
    }
    await o.clock.sleep(20);
  }
}

export async function startLauncherLibvirt(opts: LauncherLibvirtOptions): Promise<LauncherLibvirt> {
  const clock = opts.clock ?? realClock;
  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  const layout = libvirtLayout(opts.root);
  const identity = daemonIdentity();
  ensureKvmDeviceAccess(opts.log);
  const hugetlbfs = await findHugetlbfs(opts.root);
  const seeded = await prepareLibvirtFiles(layout, {
    root: opts.root,
    hostUuid: randomUUID(),
    hugetlbfs,
    ...(opts.capsCache !== undefined && { capsCache: opts.capsCache }),
  });
  // The cache, home, log and socket directories are below run.
  await giveTree(layout.config, identity);
  await giveTree(layout.run, identity);
  const env = {
    HOME: layout.home,
    XDG_CONFIG_HOME: layout.config,
    XDG_RUNTIME_DIR: layout.run,
    XDG_CACHE_HOME: layout.cache,
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    LC_ALL: 'C',
  };
  const start = async (bin: string, conf: string, name: string): Promise<ChildHandle> => {
    const log = await openDaemonLog(layout, name);
    try {
      return await spawnProcess({
        bin,
        args: ['-f', conf],
        env,
        ...(identity.name !== 'self' && { user: identity }),
        log: { fd: log.fd, path: `${layout.log}/${name}.out` },
      });
    } finally {
      await log.close();
    }
  };
  const virtlogd = await start(VIRTLOGD, layout.virtlogdConf, 'virtlogd');
  let libvirtd: ChildHandle | undefined;
  const stop = async (): Promise<void> => {
    const qemu = new Set(await qemuPids(layout));
    if (libvirtd !== undefined) await stopChild(libvirtd, 10_000, clock);
    for (const pid of await qemuPids(layout)) qemu.add(pid);
    const ours = (argv: readonly string[]): boolean =>
      (argv[0] ?? '').includes('qemu-system') &&
      argv.some((a) => a.includes(layout.config) || a.includes(opts.root));
    // Not our children (libvirtd started them): /proc must show QEMU itself; one that outlives SIGKILL is left.
    for (const pid of qemu) {
      await stopProcess(pid, ours, { graceMs: 3000, killWaitMs: 5000, runs: cmdlineShows, clock }).catch(
        leftIfStuck,
      );
    }
    await stopChild(virtlogd, 5000, clock);
    if (opts.capsCache !== undefined) await saveCaps(layout, opts.capsCache).catch(() => 0);
    opts.log.info('launcher libvirt stopped', { qemu: qemu.size });
  };
  try {
    // virtlogd refuses clients of another uid and logs each one: for it, the socket appearing is enough.
    await waitSocket(layout.virtlogdSocket, virtlogd, { timeoutMs, clock, probe: false });
    libvirtd = await start(LIBVIRTD, layout.libvirtdConf, 'libvirtd');
    await waitSocket(layout.socketPath, libvirtd, { timeoutMs, clock, probe: true });
  } catch (err) {
    await stop();
    throw new KvError('KV_ERR_CONFIG', `launcher libvirt did not start (logs in ${layout.log})`, {
      cause: err,
    });
  }
  opts.log.info('launcher libvirt started', {
    socket: layout.socketPath,
    user: identity.name,
    libvirtdPid: libvirtd.pid,
    virtlogdPid: virtlogd.pid,
    seededCaps: seeded,
    ...(hugetlbfs !== undefined && { hugetlbfs }),
  });
  return {
    layout,
    identity,
    socketPath: layout.socketPath,
    uri: SESSION_URI,
    libvirtdPid: libvirtd.pid,
    virtlogdPid: virtlogd.pid,
    stop,
  };
}
