/**
 * Listening on a unix socket in a directory others may write (kubevirt pkg/util/net/grpc CreateSocket, with
 * pkg/safepath's no-follow rule, and ListenUnixNoFollow). listenUnixSocket: in a trusted directory, the new
 * socket born owner-only (the umask is narrowed for the bind, which Node makes synchronously), a group or a wider
 * mode set on the socket's own inode. listenBeneath: in a directory below a trusted root that another party
 * writes (a launcher Pod's emptyDir), opened without following symlinks, for any server (grpc-js too): bound
 * through the directory's `/proc/self/fd/N/<name>` (so the path's length does not matter either), its mode set
 * through an O_PATH|O_NOFOLLOW handle of what was bound, checked to be a socket. Either way a stale socket is
 * removed through its directory's descriptor, anything else there is refused and left alone, and no mode is set
 * through a path a planted symlink or a rename between the bind and the chmod could redirect.
 */
import { unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import path from 'node:path';
import { KvError } from '../errors/errors.ts';
import { SafeHandle, UnsafePathError, components, openBeneath, withHandle } from './safepath.ts';

/** sun_path holds 108 bytes including the terminating NUL. */
const UNIX_PATH_MAX = 107;

export interface UnixSocketOptions {
  /** Absolute path; its directory is the trusted root (it must exist). */
  readonly path: string;
  /** Default 0o600; 0o660 lets `gid` connect too. */
  readonly mode?: number;
  /** The socket's group (its owner stays the process's user). */
  readonly gid?: number;
}

function checkPath(socketPath: string): void {
  if (!path.isAbsolute(socketPath))
    throw new KvError('KV_ERR_CONFIG', `unix socket path must be absolute: ${socketPath}`);
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > UNIX_PATH_MAX)
    throw new KvError(
      'KV_ERR_CONFIG',
      `unix socket path is ${bytes} bytes, over the ${UNIX_PATH_MAX}-byte limit: ${socketPath}`,
    );
  components([path.basename(socketPath)]);
}

/** A socket left by an earlier run is removed; anything else there (a file, a symlink) is refused. */
async function removeStale(dir: SafeHandle, name: string): Promise<void> {
  if (!(await dir.has(name))) return;
  await (await dir.open(name, ['socket'])).close();
  await unlink(`${dir.procPath}/${name}`);
}

/** Binds with umask 0177, so the socket never exists with more than 0600 (the bind happens inside listen()). */
function bindOwnerOnly(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => {
      server.off('listening', listening);
      reject(
        new KvError('KV_ERR_TRANSPORT', `cannot listen on ${socketPath}: ${err.message}`, { cause: err }),
      );
    };
    const listening = (): void => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    const previous = process.umask(0o177);
    try {
      server.listen(socketPath);
    } finally {
      process.umask(previous);
    }
  });
}

/** Listens on `o.path` with `o.mode` (default 0o600) and `o.gid`, set by descriptor. */
export async function listenUnixSocket(server: Server, o: UnixSocketOptions): Promise<void> {
  checkPath(o.path);
  const mode = o.mode ?? 0o600;
  const name = path.basename(o.path);
  await withHandle(SafeHandle.root(path.dirname(o.path)), async (dir) => {
    await removeStale(dir, name);
    await bindOwnerOnly(server, o.path);
    if (o.gid === undefined && mode === 0o600) return;
    await withHandle(dir.open(name, ['socket']), async (socket) => {
      if (o.gid !== undefined) await socket.chown(-1, o.gid);
      await socket.chmod(mode);
    });
  });
}

export interface ListenBeneathOptions {
  /** The socket's mode (e.g. 0o666 for a peer running as another user). */
  readonly mode: number;
  /**
   * Binds the server at `at` (a short `/proc/self/fd/N/<name>` path) and resolves once it listens, with the
   * function that closes it. Node unlinks a socket's bound path on close, so the directory handle stays open
   * until that function has resolved.
   */
  listen(at: string): Promise<() => Promise<void>>;
}

export interface ListeningBeneath {
  /** For messages only. */
  readonly path: string;
  /** Closes the server, then the directory handle. */
  close(): Promise<void>;
}

/** Listens on the socket at `rel` (its directories, then its name) below the trusted `root`. */
export async function listenBeneath(
  root: string,
  rel: string | readonly string[],
  o: ListenBeneathOptions,
): Promise<ListeningBeneath> {
  const parts = components(rel);
  const name = parts.at(-1);
  if (name === undefined)
    throw new UnsafePathError('bad-name', root, 'an empty relative path names no socket');
  const where = path.join(root, ...parts);
  const dir = await openBeneath(root, parts.slice(0, -1), ['directory']);
  try {
    await removeStale(dir, name);
    const closeServer = await o.listen(`${dir.procPath}/${name}`);
    try {
      await withHandle(dir.open([name], ['socket']), (socket) => socket.chmod(o.mode));
    } catch (err) {
      await closeServer();
      throw err;
    }
    return {
      path: where,
      close: async (): Promise<void> => {
        try {
          await closeServer();
        } finally {
          await dir.close();
        }
      },
    };
  } catch (err) {
    await dir.close();
    throw err;
  }
}
