/**
 * A private libvirt daemon for tests: virtlogd, then libvirtd in session mode, with their config, runtime,
 * cache, log and socket directories all under one temp dir (XDG_* point there; libvirtd's -f config moves
 * the socket). Nothing is shared with a system libvirt or with another private daemon. Both daemons and any
 * QEMU they started are stopped by PID. See host.ts for why root runs them as libvirt-qemu.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { chown, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { realClock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import type { Logger } from '../../lib/kernel/log/log.ts';
import { isRunning, stopProcess } from '../testenv/process.ts';
import { DEFAULT_CAPS_CACHE, saveCapsCache, seedCapsCache } from './caps-cache.ts';
import { daemonIdentity, ensureKvmDeviceAccess, type Identity } from './host.ts';

export const LIBVIRTD = '/usr/sbin/libvirtd';
export const VIRTLOGD = '/usr/sbin/virtlogd';
export const QEMU = '/usr/bin/qemu-system-x86_64';

export interface PrivateLibvirtOptions {
  log: Logger;
  /** Parent of the temp dir (default: the OS temp dir). Keep it short: socket paths stop at 107 bytes. */
  parentDir?: string;
  /** Keep the temp dir (logs, domain XML) after stop(). */
  keep?: boolean;
  startTimeoutMs?: number;
  /** Shared QEMU capabilities cache carried between daemons (caps-cache.ts); false probes afresh. */
  capsCache?: string | false;
}

export interface PrivateLibvirt {
  dir: string;
  socketPath: string;
  uri: string;
  /** QEMU's per-domain logs (<name>.log). */
  qemuLogDir: string;
  /** The daemons' user: files handed to a domain (disk images) must be readable by it. */
  identity: Identity;
  libvirtdPid: number;
  virtlogdPid: number;
  stop(): Promise<void>;
}

type Layout = Record<'config' | 'run' | 'cache' | 'home' | 'log' | 'sock', string>;

function layout(dir: string): Layout {
  return {
    config: join(dir, 'config'),
    run: join(dir, 'run'),
    cache: join(dir, 'cache'),
    home: join(dir, 'home'),
    log: join(dir, 'log'),
    sock: join(dir, 'run', 'sock'),
  };
}

async function chownTree(path: string, id: Identity): Promise<void> {
  await chown(path, id.uid, id.gid);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) await chownTree(p, id);
    else await chown(p, id.uid, id.gid);
  }
}

function spawnDaemon(
  bin: string,
  args: string[],
  o: { env: NodeJS.ProcessEnv; id: Identity; logFile: string },
): number {
  const fd = openSync(o.logFile, 'a');
  try {
    const asUser = o.id.name === 'self' ? {} : { uid: o.id.uid, gid: o.id.gid };
    const child = spawn(bin, args, { env: o.env, stdio: ['ignore', fd, fd], ...asUser });
    child.on('error', () => undefined);
    if (child.pid === undefined)
      throw new KvError('KV_ERR_CONFIG', `cannot start ${bin} (log: ${o.logFile})`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

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

/**
 * Waits until the daemon serves path. `probe` also connects (libvirtd); virtlogd refuses clients of another
 * uid and logs each one, so for it the socket file appearing is enough.
 */
async function waitSocket(
  path: string,
  daemon: { pid: number; bin: string },
  timeoutMs: number,
  probe = true,
): Promise<void> {
  const { pid, bin } = daemon;
  const deadline = realClock.now() + timeoutMs;
  while (!(existsSync(path) && (!probe || (await canConnect(path))))) {
    if (!isRunning(pid, bin)) throw new KvError('KV_ERR_CONFIG', `${bin} exited before serving ${path}`);
    if (realClock.now() > deadline)
      throw new KvError('KV_ERR_TIMEOUT', `${bin}: no socket ${path} after ${timeoutMs} ms`);
    await realClock.sleep(50);
  }
}

async function writeConfigs(d: Layout): Promise<{ libvirtdConf: string; virtlogdConf: string }> {
  const libvirtdConf = join(d.config, 'libvirtd.conf');
  const virtlogdConf = join(d.config, 'virtlogd.conf');
  await writeFile(
    libvirtdConf,
    `unix_sock_dir = "${d.sock}"\nlog_outputs = "3:file:${d.log}/libvirtd.log"\n`,
  );
  await writeFile(virtlogdConf, `log_outputs = "3:file:${d.log}/virtlogd.log"\n`);
  return { libvirtdConf, virtlogdConf };
}

/** Pid files of the QEMU processes this daemon started: its domains, and its capability probes. */
function qemuPidFiles(d: Layout): string[] {
  const domains = join(d.run, 'libvirt', 'qemu', 'run');
  const probes = join(d.config, 'libvirt', 'qemu', 'lib');
  const files = (dir: string, pick: (name: string) => string | undefined): string[] =>
    existsSync(dir) ? readdirSync(dir).flatMap((f) => pick(f) ?? []) : [];
  return [
    ...files(domains, (f) => (f.endsWith('.pid') ? join(domains, f) : undefined)),
    ...files(probes, (f) => (f.startsWith('qmp-') ? join(probes, f, 'qmp.pid') : undefined)),
  ].filter((f) => existsSync(f));
}

/** QEMU processes of this daemon, as [pid, argv0]; only processes whose command line names our dir. */
function qemuProcesses(d: Layout, dir: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const f of qemuPidFiles(d)) {
    const pid = Number(readFileSync(f, 'utf8').trim());
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const bin = argv[0] ?? '';
    if (basename(bin).startsWith('qemu-system') && argv.some((a) => a.includes(dir))) out.set(pid, bin);
  }
  return out;
}

/** Starts virtlogd and libvirtd (session mode) under a fresh temp dir; resolves once the socket answers. */
export async function startPrivateLibvirt(o: PrivateLibvirtOptions): Promise<PrivateLibvirt> {
  const timeoutMs = o.startTimeoutMs ?? 30_000;
  const id = daemonIdentity();
  ensureKvmDeviceAccess(o.log);
  const dir = mkdtempSync(join(o.parentDir ?? tmpdir(), 'kv-libvirt-'));
  const d = layout(dir);
  for (const p of Object.values(d)) mkdirSync(p, { recursive: true });
  const { libvirtdConf, virtlogdConf } = await writeConfigs(d);
  const capsCache = o.capsCache ?? DEFAULT_CAPS_CACHE;
  const seeded = capsCache === false ? 0 : seedCapsCache(capsCache, d.cache);
  if (id.name !== 'self') await chownTree(dir, id);
  const env = {
    HOME: d.home,
    XDG_CONFIG_HOME: d.config,
    XDG_RUNTIME_DIR: d.run,
    XDG_CACHE_HOME: d.cache,
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    LC_ALL: 'C',
  };
  const log = o.log.with({ dir, user: id.name });
  const virtlogdPid = spawnDaemon(VIRTLOGD, ['-f', virtlogdConf], {
    env,
    id,
    logFile: join(d.log, 'virtlogd.out'),
  });
  let libvirtdPid = 0;
  const stopAll = async (keep: boolean): Promise<void> => {
    const qemu = qemuProcesses(d, dir);
    if (libvirtdPid > 0) await stopProcess(libvirtdPid, LIBVIRTD);
    for (const [pid, bin] of qemuProcesses(d, dir)) qemu.set(pid, bin);
    for (const [pid, bin] of qemu) await stopProcess(pid, bin, { graceMs: 2000 });
    await stopProcess(virtlogdPid, VIRTLOGD);
    if (capsCache !== false) saveCapsCache(d.cache, capsCache);
    if (!keep) rmSync(dir, { recursive: true, force: true });
    log.info('private libvirt stopped', { kept: keep, qemu: qemu.size });
  };
  const stop = (): Promise<void> => stopAll(o.keep === true);
  try {
    await waitSocket(
      join(d.run, 'libvirt', 'virtlogd-sock'),
      { pid: virtlogdPid, bin: VIRTLOGD },
      timeoutMs,
      false,
    );
    libvirtdPid = spawnDaemon(LIBVIRTD, ['-f', libvirtdConf], {
      env,
      id,
      logFile: join(d.log, 'libvirtd.out'),
    });
    const socketPath = join(d.sock, 'libvirt-sock');
    await waitSocket(socketPath, { pid: libvirtdPid, bin: LIBVIRTD }, timeoutMs);
    log.info('private libvirt started', {
      socket: socketPath,
      libvirtdPid,
      virtlogdPid,
      mode: 'session',
      seeded,
    });
    const qemuLogDir = join(d.cache, 'libvirt', 'qemu', 'log');
    return {
      dir,
      socketPath,
      uri: 'qemu:///session',
      qemuLogDir,
      identity: id,
      libvirtdPid,
      virtlogdPid,
      stop,
    };
  } catch (err) {
    await stopAll(true);
    throw new KvError('KV_ERR_CONFIG', `private libvirt did not start (logs kept in ${d.log})`, {
      cause: err,
    });
  }
}
