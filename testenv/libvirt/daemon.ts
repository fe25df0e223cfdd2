/**
 * A private libvirt daemon for tests: the launcher's own (lib/libvirt/daemon/libvirt-daemon.ts: virtlogd,
 * then libvirtd in session mode, every directory under one root, run as libvirt-qemu when we are root,
 * stopped by PID with any QEMU it started) under a fresh temp dir, sharing the QEMU capabilities cache with
 * the other private daemons of the tests. Nothing is shared with a system libvirt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../lib/kernel/log/log.ts';
import { startLauncherLibvirt } from '../../lib/libvirt/daemon/libvirt-daemon.ts';
import type { Identity } from '../../lib/libvirt/daemon/identity.ts';

export const QEMU = '/usr/bin/qemu-system-x86_64';

/** libvirt's QEMU capabilities cache shared by the tests' daemons (libvirt probes each QEMU for seconds). */
export const DEFAULT_CAPS_CACHE = join(tmpdir(), 'kv-libvirt-qemu-caps');

export interface PrivateLibvirtOptions {
  log: Logger;
  /** Parent of the temp dir (default: the OS temp dir). Keep it short: socket paths stop at 107 bytes. */
  parentDir?: string;
  /** Keep the temp dir (logs, domain XML) after stop(). */
  keep?: boolean;
  startTimeoutMs?: number;
  /** Shared QEMU capabilities cache carried between daemons; false probes afresh. */
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

/** Starts the daemons under a fresh temp dir; resolves once libvirtd's socket answers. On failure the dir is kept. */
export async function startPrivateLibvirt(o: PrivateLibvirtOptions): Promise<PrivateLibvirt> {
  const dir = mkdtempSync(join(o.parentDir ?? tmpdir(), 'kv-libvirt-'));
  const capsCache = o.capsCache ?? DEFAULT_CAPS_CACHE;
  const lv = await startLauncherLibvirt({
    root: dir,
    log: o.log.with({ dir }),
    ...(capsCache !== false && { capsCache }),
    ...(o.startTimeoutMs !== undefined && { startTimeoutMs: o.startTimeoutMs }),
  });
  return {
    dir,
    socketPath: lv.socketPath,
    uri: lv.uri,
    qemuLogDir: lv.layout.qemuLogDir,
    identity: lv.identity,
    libvirtdPid: lv.libvirtdPid,
    virtlogdPid: lv.virtlogdPid,
    stop: async (): Promise<void> => {
      await lv.stop();
      if (o.keep !== true) rmSync(dir, { recursive: true, force: true });
    },
  };
}
