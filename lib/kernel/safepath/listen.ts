/**
 * Listening on a unix socket in a directory another party writes (kubevirt pkg/safepath ListenUnixNoFollow, and
 * virt-handler's notify pipe, whose socket it then hands to the launcher's user). The directory is opened below
 * a trusted root without following symlinks; a stale socket there is removed, anything else there is refused
 * and left alone; the socket is bound through the directory's `/proc/self/fd/N/<name>`; and its mode is set
 * through an O_PATH|O_NOFOLLOW handle of what was bound, checked to be a socket. Never chmod by path there: a
 * rename between the bind and the chmod would give any file the socket's mode. (A umask changed around the bind
 * would need no chmod, but the umask is the whole process's: a file another thread creates meanwhile gets it.)
 */
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { components, openBeneath, UnsafePathError, withHandle, type SafeHandle } from './safepath.ts';

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

/** Removes a stale socket `name` of `dir`; refuses a symlink or anything else there. */
async function removeStaleSocket(dir: SafeHandle, name: string): Promise<void> {
  try {
    await (await dir.open([name], ['socket'])).close();
  } catch (err) {
    if (err instanceof UnsafePathError && err.reason === 'not-found') return;
    if (err instanceof UnsafePathError)
      throw new UnsafePathError(
        err.reason,
        err.where,
        `${err.message}: refusing to replace it with a socket`,
      );
    throw err;
  }
  // unlink never follows the last name: if the entry was swapped since, only the other party's own goes.
  await unlink(`${dir.procPath}/${name}`).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  });
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
    await removeStaleSocket(dir, name);
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
