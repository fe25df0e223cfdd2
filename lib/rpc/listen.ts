/**
 * Unix-socket plumbing for gRPC (kubevirt pkg/util/net/grpc/grpc.go CreateSocket/DialSocket):
 * remove a stale socket, mkdir -p the parent, check the sun_path limit, then bind.
 */
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { mkdir, lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ServerCredentials, type Server } from '@grpc/grpc-js';
import { realClock, type Clock } from '../kernel/clock.ts';
import { KvError } from '../kernel/errors/errors.ts';

/** sun_path holds 108 bytes including the terminating NUL; longer paths are silently truncated. */
export const UNIX_PATH_MAX = 107;

/** Throws KV_ERR_CONFIG unless `socketPath` is absolute and fits sun_path. */
export function checkSocketPath(socketPath: string): void {
  if (!path.isAbsolute(socketPath)) {
    throw new KvError('KV_ERR_CONFIG', `unix socket path must be absolute: ${socketPath}`);
  }
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > UNIX_PATH_MAX) {
    throw new KvError(
      'KV_ERR_CONFIG',
      `unix socket path is ${bytes} bytes, over the ${UNIX_PATH_MAX}-byte limit (use a shorter root): ${socketPath}`,
    );
  }
}

/** The grpc-js target for an absolute socket path: unix:///abs/path. */
export function unixTarget(socketPath: string): string {
  checkSocketPath(socketPath);
  return `unix://${socketPath}`;
}

export interface DialPath {
  /** A path that fits sun_path and names the same socket. */
  readonly path: string;
  /** Closes what keeps the path valid (a no-op for a short path). */
  release(): void;
}

/**
 * A path to dial socketPath by: the path itself when it fits sun_path, otherwise the socket's name under
 * /proc/self/fd/<fd> of its directory, opened here and valid until release(). A node reaches a launcher's
 * socket inside the kubelet's pods dir (`…/pods/<uid>/volumes/kubernetes.io~empty-dir/sockets/launcher-sock`),
 * which is over the limit under /var/lib/kubelet already.
 */
export function dialPath(socketPath: string): DialPath {
  if (Buffer.byteLength(socketPath) <= UNIX_PATH_MAX) {
    checkSocketPath(socketPath);
    return { path: socketPath, release: (): void => undefined };
  }
  if (!path.isAbsolute(socketPath)) checkSocketPath(socketPath);
  let fd: number;
  try {
    fd = openSync(path.dirname(socketPath), fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
  } catch (err) {
    throw new KvError('KV_ERR_TRANSPORT', `cannot open the directory of ${socketPath}`, { cause: err });
  }
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${path.basename(socketPath)}`,
    release: (): void => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

async function removeStaleSocket(socketPath: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(socketPath)).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) {
    throw new KvError('KV_ERR_CONFIG', `refusing to replace a non-socket file with a socket: ${socketPath}`);
  }
  await unlink(socketPath);
}

/** Binds `server` to `socketPath`, replacing a stale socket left by a previous run. */
export async function listenUnix(server: Server, socketPath: string): Promise<void> {
  const target = unixTarget(socketPath);
  await mkdir(path.dirname(socketPath), { recursive: true });
  await removeStaleSocket(socketPath);
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(target, ServerCredentials.createInsecure(), (err) => {
      if (err !== null) {
        reject(
          new KvError('KV_ERR_TRANSPORT', `cannot listen on ${socketPath}: ${err.message}`, { cause: err }),
        );
        return;
      }
      resolve();
      return;
    });
  });
}

/** Stops accepting calls and waits for the running ones; cancels them after `graceMs`. */
export function shutdownServer(server: Server, graceMs: number, clock: Clock = realClock): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.after(graceMs, () => {
      server.forceShutdown();
    });
    server.tryShutdown(() => {
      timer.cancel();
      resolve();
      return;
    });
  });
}
