/**
 * Unix-socket plumbing for gRPC (kubevirt pkg/util/net/grpc/grpc.go CreateSocket/DialSocket):
 * remove a stale socket, mkdir -p the parent, check the sun_path limit, then bind (a socket only its owner
 * may reach is made with that mode from the start); dial a socket by an O_PATH|O_NOFOLLOW handle checked to be
 * one.
 */
import { mkdir, lstat, unlink } from 'node:fs/promises';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
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

/** The socket's directory made, a socket left at the path by an earlier run removed (anything else refused). */
export async function prepareSocketPath(socketPath: string): Promise<void> {
  await mkdir(path.dirname(socketPath), { recursive: true });
  await removeStaleSocket(socketPath);
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

/** Our own listeners (and their connections) of servers bound with a mode: shutdownServer closes them. */
interface OwnListener {
  readonly listener: NetServer;
  readonly connections: Set<Socket>;
}
const ownListeners = new WeakMap<Server, OwnListener[]>();

function bindError(socketPath: string, err: Error): KvError {
  return new KvError('KV_ERR_TRANSPORT', `cannot listen on ${socketPath}: ${err.message}`, { cause: err });
}

/**
 * Listens on `socketPath` with a socket made with `mode`: bind(2) applies the process umask, which is set to
 * mode's complement around the listen call (Node binds synchronously within it), so no client can connect
 * before the mode holds, as one could between a bind and a chmod. grpc-js serves the connections.
 */
async function listenWithMode(server: Server, socketPath: string, mode: number): Promise<void> {
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const connections = new Set<Socket>();
  const listener = createServer((c) => {
    connections.add(c);
    c.once('close', () => connections.delete(c));
    injector.injectConnection(c);
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => {
      reject(bindError(socketPath, err));
    };
    listener.once('error', fail);
    const umask = process.umask(0o777 & ~mode);
    try {
      listener.listen(socketPath, () => {
        listener.off('error', fail);
        // A failed accept (EMFILE) costs that one connection; the listener goes on.
        listener.on('error', () => undefined);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  ownListeners.set(server, [...(ownListeners.get(server) ?? []), { listener, connections }]);
}

/**
 * Binds `server` to `socketPath`, replacing a stale socket left by a previous run. With `mode` (e.g. 0o600),
 * the socket has that mode the moment it exists, whatever the process umask.
 */
export async function listenUnix(
  server: Server,
  socketPath: string,
  o: { mode?: number } = {},
): Promise<void> {
  const target = unixTarget(socketPath);
  await prepareSocketPath(socketPath);
  if (o.mode !== undefined) {
    await listenWithMode(server, socketPath, o.mode);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(target, ServerCredentials.createInsecure(), (err) => {
      if (err !== null) {
        reject(bindError(socketPath, err));
        return;
      }
      resolve();
      return;
    });
  });
}

/** Stops accepting calls and waits for the running ones; cancels them after `graceMs`. */
export async function shutdownServer(
  server: Server,
  graceMs: number,
  clock: Clock = realClock,
): Promise<void> {
  const own = ownListeners.get(server) ?? [];
  ownListeners.delete(server);
  const timer = clock.after(graceMs, () => {
    server.forceShutdown();
    for (const o of own) for (const c of o.connections) c.destroy();
  });
  const closed = own.map(
    (o) =>
      new Promise<void>((resolve) => {
        o.listener.close(() => {
          resolve();
        });
      }),
  );
  const drained = new Promise<void>((resolve) => {
    server.tryShutdown(() => {
      resolve();
      return;
    });
  });
  await Promise.all([drained, ...closed]);
  timer.cancel();
}
