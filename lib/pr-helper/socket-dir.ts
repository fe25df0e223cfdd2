/**
 * The directory of qemu-pr-helper's socket, shared with the host and the launcher Pods (kubevirt
 * cmd/pr-helper, the virt-handler DaemonSet's pr-helper container): made 0755 when missing, refused when it is
 * a symbolic link or when another user could write to it, and a socket left by an earlier run removed before each start. Only a unix socket is
 * removed; a link or any other file in its place is refused, never followed.
 */
import { mkdir, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute } from 'node:path';
import { KvError } from '../kernel/errors/errors.ts';
import {
  mkdirBeneath,
  openBeneath,
  type SafeHandle,
  UnsafePathError,
  withHandle,
} from '../kernel/safepath/index.ts';

const DIR_MODE = 0o755;

/**
 * The directory must be ours alone: owned by this process's user and writable by nobody else, or another user
 * could put their own socket where QEMU looks for the helper's.
 */
function refuseShared(dir: SafeHandle): void {
  const { uid, mode } = dir.stat;
  if (uid !== process.getuid?.() || (mode & 0o022) !== 0) {
    throw new KvError(
      'KV_ERR_UNSAFE_PATH',
      `${dir.path} is owned by uid ${uid} with mode ${(mode & 0o777).toString(8)}: refused (it must belong to ` +
        `uid ${process.getuid?.() ?? '?'} and be writable by it alone)`,
    );
  }
}

/** Removes the socket `name` of dir when there (false when absent); any other kind of entry is refused. */
async function removeStaleSocket(dir: SafeHandle, name: string): Promise<boolean> {
  try {
    await withHandle(dir.open([name], ['socket']), () => unlink(`${dir.procPath}/${name}`));
    return true;
  } catch (err) {
    if (err instanceof UnsafePathError && err.reason === 'not-found') return false;
    throw new KvError(
      'KV_ERR_UNSAFE_PATH',
      `${dir.path}/${name} is there and is not a unix socket: refused (remove it by hand)`,
      { cause: err },
    );
  }
}

/**
 * Makes the socket's directory when missing (its ancestors as given, the directory itself never through a
 * link) and removes a stale socket. Resolves whether one was removed.
 */
export async function prepareSocketPath(socket: string): Promise<boolean> {
  if (!isAbsolute(socket)) throw new KvError('KV_ERR_CONFIG', `--socket ${socket}: give an absolute path`);
  const dir = dirname(socket);
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true, mode: DIR_MODE });
  try {
    return await withHandle(openBeneath(parent, [], ['directory']), (top) =>
      withHandle(mkdirBeneath(top, [basename(dir)], DIR_MODE), (h) => {
        refuseShared(h);
        return removeStaleSocket(h, basename(socket));
      }),
    );
  } catch (err) {
    if (err instanceof UnsafePathError && err.reason === 'symlink')
      throw new KvError(
        'KV_ERR_UNSAFE_PATH',
        `--socket ${socket}: its directory ${dir} is a symbolic link: refused (the directory is shared with the host; make it a real directory)`,
        { cause: err },
      );
    throw err;
  }
}
