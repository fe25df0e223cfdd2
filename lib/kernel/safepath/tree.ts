/**
 * Directories and files made, replaced and walked below an open directory, by descriptor and never through a
 * symlink (kubevirt pkg/safepath MkdirAtNoFollow, ChownAtNoFollow and the walks of its callers): what a root
 * process needs in a directory another user writes. Each name is acted on through the parent's
 * `/proc/self/fd/N/<name>`; the kernel does not follow a symlink in the last component of mkdir, unlink,
 * rename or an O_NOFOLLOW open, so a name swapped for a link is refused or replaced, never followed.
 */
import { constants as fs } from 'node:fs';
import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { components, SafeHandle, UnsafePathError, type PathKind } from './safepath.ts';

const ANY: readonly PathKind[] = ['directory', 'file', 'block', 'socket'];

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * The directory `rel` (one component at least) below `dir`, each missing component made with `mode` (the
 * umask applies, as with mkdir -p). Any symlink or non-directory on the way is refused. The caller closes the
 * handle.
 */
export async function mkdirBeneath(
  dir: SafeHandle,
  rel: string | readonly string[],
  mode = 0o755,
): Promise<SafeHandle> {
  const names = components(rel);
  if (names.length === 0)
    throw new UnsafePathError('bad-name', dir.path, 'an empty relative path names nothing');
  let current: SafeHandle | undefined;
  try {
    for (const name of names) {
      const parent: SafeHandle = current ?? dir;
      await mkdir(`${parent.procPath}/${name}`, { mode }).catch((err: unknown) => {
        if (errno(err) !== 'EEXIST') throw err;
      });
      const next = await parent.open([name], ['directory']);
      await current?.close();
      current = next;
    }
  } catch (err) {
    await current?.close();
    throw err;
  }
  if (current === undefined) throw new UnsafePathError('bad-name', dir.path, 'nothing made');
  return current;
}

/**
 * Puts `content` at `name` in `dir` with `mode`: written to a fresh file made with O_EXCL|O_NOFOLLOW, then
 * renamed over whatever `name` was (a planted symlink is replaced, not written through).
 */
export async function replaceFileIn(
  dir: SafeHandle,
  name: string,
  content: string | Buffer,
  mode: number,
): Promise<void> {
  components([name]);
  const tmp = `.${name}.${process.pid}.tmp`;
  await unlink(`${dir.procPath}/${tmp}`).catch((err: unknown) => {
    if (errno(err) !== 'ENOENT') throw err;
  });
  const h = await dir.createFile(tmp, mode);
  try {
    const f = await h.reopen(fs.O_WRONLY);
    try {
      await f.writeFile(content);
    } finally {
      await f.close();
    }
    await h.chmod(mode);
    await rename(`${dir.procPath}/${tmp}`, `${dir.procPath}/${name}`);
  } catch (err) {
    await unlink(`${dir.procPath}/${tmp}`).catch(() => undefined);
    throw err;
  } finally {
    await h.close();
  }
}

/**
 * Calls `fn` on `dir` and on every directory, regular file, block device and socket below it, depth first,
 * parents before children. Symlinks are never followed nor passed to `fn`; FIFOs and character devices
 * are skipped, as is an entry that vanishes during the walk.
 */
export async function walkBeneath(dir: SafeHandle, fn: (h: SafeHandle) => Promise<void>): Promise<void> {
  await fn(dir);
  if (dir.kind !== 'directory') return;
  for (const name of await readdir(dir.procPath)) {
    let child: SafeHandle;
    try {
      child = await dir.open([name], ANY);
    } catch (err) {
      if (err instanceof UnsafePathError && ['symlink', 'wrong-kind', 'not-found'].includes(err.reason))
        continue;
      throw err;
    }
    try {
      await walkBeneath(child, fn);
    } finally {
      await child.close();
    }
  }
}
