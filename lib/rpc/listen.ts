/**
 * Unix-socket plumbing for gRPC (kubevirt pkg/util/net/grpc/grpc.go CreateSocket/DialSocket):
 * remove a stale socket, mkdir -p the parent, check the sun_path limit, then bind; dial a socket by an
 * O_PATH|O_NOFOLLOW handle checked to be one.
 */
import { mkdir, lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ServerCredentials, type Server } from '@grpc/grpc-js';
import { realClock, type Clock } from '../kernel/clock.ts';
import { KvError } from '../kernel/errors/errors.ts';
import { openBeneath, type SafeHandle } from '../kernel/safepath/index.ts';
import type { PodPath } from './pod-layout.ts';

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

/**
 * A unix socket to dial: a PodPath (a trusted root and the names below it, which another party writes), or a
 * path whose directory the caller trusts as a whole.
 */
export type SocketAt = string | PodPath;

/**
 * Opens the socket at `at` for dialling (kubevirt pkg/safepath OpenAtNoFollow): O_PATH|O_NOFOLLOW component by
 * component below the root, the last one checked to be a socket. Dial the handle's `procPath`
 * (`/proc/self/fd/N`): it names that inode for as long as the handle is open, however long the path was (a
 * node reaches a launcher's socket through the kubelet's pods dir, over the 107-byte sun_path limit), and a
 * symlink planted at the path is refused with UnsafePathError (reason `symlink`), never followed to another
 * socket on the host.
 */
export async function openSocket(at: SocketAt): Promise<SafeHandle> {
  if (typeof at !== 'string') return openBeneath(at.root, at.rel, ['socket']);
  if (!path.isAbsolute(at)) throw new KvError('KV_ERR_CONFIG', `unix socket path must be absolute: ${at}`);
  return openBeneath(path.dirname(at), [path.basename(at)], ['socket']);
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
