/**
 * Paths under a root the caller trusts, resolved without following any symlink below it, and acted on by
 * descriptor (kubevirt pkg/safepath: JoinAndResolveWithRelativeRoot, OpenAtNoFollow, ChmodAtNoFollow). A root
 * is trusted as a whole (the kubelet's pods dir, a PersistentVolume's own path): it is opened as given, symlinks
 * and all. Each name below it is opened through its parent's `/proc/self/fd/N/<name>` with O_PATH|O_NOFOLLOW,
 * so a symlink anywhere below the root is refused, never followed (Node has no openat2). What a handle names
 * cannot change under it: later acts (a reopen, chown, chmod, connect, mount) go through `/proc/self/fd/N`,
 * which the kernel resolves to the inode opened, never to a path a tenant may have swapped since.
 */
import { constants as fs, type Stats } from 'node:fs';
import { chmod, chown, open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { KvError } from '../errors/errors.ts';

/** Linux O_PATH (x86_64 and arm64): a descriptor that only names an inode; Node does not export it. */
const O_PATH = 0o10000000;

export type PathKind = 'directory' | 'file' | 'block' | 'socket';

/** Why a path was refused: stable, for callers to branch on and for status messages. */
export type UnsafeReason = 'symlink' | 'not-found' | 'wrong-kind' | 'bad-name' | 'exists' | 'io';

export class UnsafePathError extends KvError {
  constructor(
    readonly reason: UnsafeReason,
    readonly where: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('KV_ERR_UNSAFE_PATH', message, options);
  }
}

function kindOf(st: Stats): PathKind | 'symlink' | 'other' {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'directory';
  if (st.isFile()) return 'file';
  if (st.isBlockDevice()) return 'block';
  if (st.isSocket()) return 'socket';
  return 'other';
}

const KIND_TEXT: Readonly<Record<PathKind | 'symlink' | 'other', string>> = {
  directory: 'a directory',
  file: 'a regular file',
  block: 'a block device',
  socket: 'a unix socket',
  symlink: 'a symbolic link',
  other: 'a special file',
};

function expected(kinds: readonly PathKind[]): string {
  return kinds.map((k) => KIND_TEXT[k]).join(' or ');
}

/** One path component: not empty, not `.` or `..`, no `/` or NUL. */
function isSafeName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/** The components of a relative path, each checked with isSafeName; '' gives none. */
export function components(rel: string | readonly string[]): string[] {
  const parts = typeof rel === 'string' ? (rel === '' ? [] : rel.split('/')) : [...rel];
  for (const p of parts) {
    if (!isSafeName(p))
      throw new UnsafePathError(
        'bad-name',
        parts.join('/'),
        `path component ${JSON.stringify(p)} is not a plain name`,
      );
  }
  return parts;
}

function ioError(where: string, err: unknown): UnsafePathError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new UnsafePathError('not-found', where, `${where} does not exist`, { cause: err });
  if (code === 'ELOOP')
    return new UnsafePathError('symlink', where, `${where} is a symbolic link`, { cause: err });
  if (code === 'EEXIST')
    return new UnsafePathError('exists', where, `${where} exists already`, { cause: err });
  return new UnsafePathError('io', where, `${where}: ${code ?? String(err)}`, { cause: err });
}

/** An open, checked path. `path` is for messages only: never act on it. */
export class SafeHandle {
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    readonly path: string,
    readonly kind: PathKind,
    readonly stat: Stats,
  ) {}

  get fd(): number {
    return this.handle.fd;
  }

  /** `/proc/self/fd/N`: the inode this handle holds, for path-taking calls (connect, mount in a child). */
  get procPath(): string {
    return `/proc/self/fd/${this.handle.fd}`;
  }

  /** Opens `rel` below this directory without following symlinks; the last one must be of `expect`. */
  async open(rel: string | readonly string[], expect: readonly PathKind[]): Promise<SafeHandle> {
    const parts = components(rel);
    const first = parts[0];
    if (first === undefined)
      throw new UnsafePathError('bad-name', this.path, 'an empty relative path names nothing');
    let current = await this.child(first, parts.length === 1 ? expect : ['directory']);
    try {
      for (const [i, name] of parts.slice(1).entries()) {
        const next = await current.child(name, i === parts.length - 2 ? expect : ['directory']);
        await current.close();
        current = next;
      }
    } catch (err) {
      await current.close();
      throw err;
    }
    return current;
  }

  /** The entry `name` of this directory, when it is of `expect` (a symlink never is). */
  private async child(name: string, expect: readonly PathKind[]): Promise<SafeHandle> {
    this.mustBe('directory');
    const where = path.join(this.path, name);
    return SafeHandle.openChecked({
      at: `${this.procPath}/${name}`,
      where,
      expect,
      flags: O_PATH | fs.O_NOFOLLOW,
    });
  }

  /** Whether `name` exists in this directory (any kind, a symlink included), without following it. */
  async has(name: string): Promise<boolean> {
    try {
      await (await this.child(name, ['directory', 'file', 'block', 'socket'])).close();
      return true;
    } catch (err) {
      if (err instanceof UnsafePathError && err.reason === 'not-found') return false;
      if (err instanceof UnsafePathError && (err.reason === 'wrong-kind' || err.reason === 'symlink'))
        return true;
      throw err;
    }
  }

  /**
   * Creates the regular file `name` in this directory (O_CREAT|O_EXCL|O_NOFOLLOW: never an existing entry,
   * never through a symlink) with `mode`, and returns it. With `reuse`, an existing regular file is opened
   * instead (anything else there is refused).
   */
  async createFile(name: string, mode: number, o: { reuse?: boolean } = {}): Promise<SafeHandle> {
    this.mustBe('directory');
    components([name]);
    const where = path.join(this.path, name);
    const flags = fs.O_CREAT | fs.O_EXCL | fs.O_NOFOLLOW | fs.O_WRONLY | fs.O_NONBLOCK;
    try {
      return await SafeHandle.openChecked({
        at: `${this.procPath}/${name}`,
        where,
        expect: ['file'],
        flags,
        mode,
      });
    } catch (err) {
      if (o.reuse === true && err instanceof UnsafePathError && err.reason === 'exists')
        return this.child(name, ['file']);
      throw err;
    }
  }

  /** Opens the same inode again with real access flags (O_RDONLY, O_RDWR …; never for a socket). */
  async reopen(flags: number): Promise<FileHandle> {
    if (this.kind === 'socket')
      throw new UnsafePathError('wrong-kind', this.path, `${this.path} is a unix socket`);
    try {
      return await open(this.procPath, flags | fs.O_NONBLOCK);
    } catch (err) {
      throw ioError(this.path, err);
    }
  }

  async chown(uid: number, gid: number): Promise<void> {
    await chown(this.procPath, uid, gid).catch((err: unknown) => {
      throw ioError(this.path, err);
    });
  }

  async chmod(mode: number): Promise<void> {
    await chmod(this.procPath, mode).catch((err: unknown) => {
      throw ioError(this.path, err);
    });
  }

  /** The id of the mount the inode lies on (`mnt_id` of /proc/self/fdinfo): differs from its parent's on a mount point. */
  async mountId(): Promise<number> {
    const info = await readFile(`/proc/self/fdinfo/${this.handle.fd}`, 'utf8');
    const m = /^mnt_id:\s*(\d+)$/m.exec(info);
    if (m?.[1] === undefined) throw new UnsafePathError('io', this.path, `no mount id for ${this.path}`);
    return Number(m[1]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }

  private mustBe(kind: PathKind): void {
    if (this.kind !== kind)
      throw new UnsafePathError(
        'wrong-kind',
        this.path,
        `${this.path} is ${KIND_TEXT[this.kind]}, not ${KIND_TEXT[kind]}`,
      );
  }

  private static async openChecked(o: {
    at: string;
    where: string;
    expect: readonly PathKind[];
    flags: number;
    mode?: number;
  }): Promise<SafeHandle> {
    const { where, expect } = o;
    let h: FileHandle;
    try {
      h = await open(o.at, o.flags, o.mode);
    } catch (err) {
      throw ioError(where, err);
    }
    try {
      const st = await h.stat();
      const kind = kindOf(st);
      if (kind === 'symlink') throw new UnsafePathError('symlink', where, `${where} is a symbolic link`);
      if (kind === 'other' || !expect.includes(kind))
        throw new UnsafePathError(
          'wrong-kind',
          where,
          `${where} is ${KIND_TEXT[kind]}, not ${expected(expect)}`,
        );
      return new SafeHandle(h, where, kind, st);
    } catch (err) {
      await h.close();
      throw err;
    }
  }

  /** Opens a trusted root directory (symlinks in `root` itself are the trusted party's and are followed). */
  static async root(root: string): Promise<SafeHandle> {
    if (!path.isAbsolute(root))
      throw new UnsafePathError('bad-name', root, `the root ${JSON.stringify(root)} is not an absolute path`);
    return SafeHandle.openChecked({
      at: root,
      where: root,
      expect: ['directory'],
      flags: O_PATH | fs.O_DIRECTORY,
    });
  }
}

/**
 * Opens `rel` below the trusted `root` without following symlinks below it; the last component must be of
 * `expect`. The caller closes the handle.
 */
export async function openBeneath(
  root: string,
  rel: string | readonly string[],
  expect: readonly PathKind[],
): Promise<SafeHandle> {
  const base = await SafeHandle.root(root);
  if (components(rel).length === 0) {
    if (expect.includes('directory')) return base;
    await base.close();
    throw new UnsafePathError('wrong-kind', root, `${root} is a directory, not ${expected(expect)}`);
  }
  try {
    return await base.open(rel, expect);
  } finally {
    await base.close();
  }
}

/** Runs `fn` with the handle and closes it afterwards, whatever happens. */
export async function withHandle<T>(
  h: SafeHandle | Promise<SafeHandle>,
  fn: (h: SafeHandle) => Promise<T>,
): Promise<T> {
  const handle = await h;
  try {
    return await fn(handle);
  } finally {
    await handle.close();
  }
}
