/**
 * Listening on a unix socket in a directory others may write (kubevirt pkg/util/net/grpc CreateSocket, with
 * pkg/safepath's no-follow rule): a stale socket is removed through its directory's descriptor, the new one is
 * born owner-only (the umask is narrowed for the bind, which Node makes synchronously), and a group or a wider
 * mode is set on the socket's own inode, never through a path a planted symlink could redirect.
 */
import { unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import path from 'node:path';
import { KvError } from '../errors/errors.ts';
import { SafeHandle, components, withHandle } from './safepath.ts';

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
