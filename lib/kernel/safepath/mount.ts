/**
 * Bind mounts by descriptor (kubevirt pkg/virt-handler/hotplug-disk/mount.go, which mounts `/proc/self/fd/N` of
 * safepath handles). `mount` runs as a child holding the handles as its fds 3, 4, …, with `--no-canonicalize`,
 * so no path is resolved again as a string: the kernel mounts the inodes opened. Unmounting is lazy and by the
 * mount's own handle, so a tenant's rename or symlink cannot point it at another mount.
 */
import { spawn } from 'node:child_process';
import { KvError } from '../errors/errors.ts';
import type { SafeHandle } from './safepath.ts';

const TIMEOUT_MS = 30_000;

/** Runs `cmd` with the handles as fds 3, 4, … (named `/proc/self/fd/3`, … in `args`). */
function runWithFds(
  cmd: string,
  args: (fdPaths: string[]) => string[],
  handles: readonly SafeHandle[],
): Promise<void> {
  const paths = handles.map((_, i) => `/proc/self/fd/${i + 3}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args(paths), {
      stdio: ['ignore', 'ignore', 'pipe', ...handles.map((h) => h.fd)],
      timeout: TIMEOUT_MS,
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (s: string) => {
      if (stderr.length < 4096) stderr += s;
    });
    child.once('error', (err) => {
      reject(new KvError('KV_ERR_INTERNAL', `${cmd}: ${err.message}`, { cause: err }));
    });
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new KvError('KV_ERR_INTERNAL', `${cmd} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`),
        );
    });
  });
}

/** Bind-mounts the inode of `source` onto the inode of `target` (both opened with safepath). */
export function bindMount(source: SafeHandle, target: SafeHandle): Promise<void> {
  return runWithFds('mount', ([s = '', t = '']) => ['--no-canonicalize', '--bind', s, t], [source, target]);
}

/** Makes the bind mount whose root `mounted` holds read-only (a bind mount takes `ro` only by a remount). */
export function remountReadOnly(mounted: SafeHandle): Promise<void> {
  return runWithFds('mount', ([m = '']) => ['--no-canonicalize', '-o', 'remount,bind,ro', m], [mounted]);
}

/** Detaches the mount whose root `mounted` holds (lazy: the handle itself keeps it busy until closed). */
export function unmountLazy(mounted: SafeHandle): Promise<void> {
  return runWithFds('umount', ([m = '']) => ['--no-canonicalize', '--lazy', m], [mounted]);
}

/** Whether `entry`, an entry of `dir`, is a mount point: it lies on another mount than its directory. */
export async function isMountPoint(dir: SafeHandle, entry: SafeHandle): Promise<boolean> {
  return (await dir.mountId()) !== (await entry.mountId());
}
