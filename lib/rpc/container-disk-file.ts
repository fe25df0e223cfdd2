/**
 * The disk file of a containerDisk image, as the launcher (the image volume of its Pod) and the handler (the
 * image of a hotplugged containerDisk on the node) both find it: the volume's `path` when given (it must exist
 * inside the image), otherwise the only file under `disk/` (KubeVirt's image-volume layout: a containerDisk
 * image holds exactly one disk in /disk). The image is the tenant's: its symlinks are resolved inside it, as if
 * it were the root (kubevirt pkg/container-disk GetImage with safepath), so the file found never lies outside
 * it, and it must be a regular file.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../kernel/errors/errors.ts';
import { resolveBeneath, UnsafePathError, type PathKind } from '../kernel/safepath/index.ts';

const DEFAULT_DIR = 'disk';

/** Builds the error a caller throws, with the message (and what caused it). */
export type DiskFileFailure = (message: string, cause?: unknown) => Error;

function notFound(err: unknown): boolean {
  return err instanceof UnsafePathError && err.reason === 'not-found';
}

async function givenPath(base: string, p: string, fail: DiskFileFailure): Promise<string[]> {
  let found: { parts: string[]; kind: PathKind };
  try {
    found = await resolveBeneath(base, p);
  } catch (err) {
    const looked = path.join(base, path.posix.normalize(`/${p}`));
    if (notFound(err)) throw fail(`path ${p} is not in the image (looked for ${looked})`, err);
    throw fail(`path ${p}: ${errorMessage(err)}`, err);
  }
  if (found.kind !== 'file') throw fail(`path ${p} in the image is not a file`);
  return found.parts;
}

async function onlyFile(base: string, fail: DiskFileFailure): Promise<string[]> {
  let dir: string[];
  try {
    const found = await resolveBeneath(base, DEFAULT_DIR);
    if (found.kind !== 'directory') throw new UnsafePathError('not-found', DEFAULT_DIR, 'not a directory');
    dir = found.parts;
  } catch (err) {
    const looked = path.join(base, DEFAULT_DIR);
    throw fail(`the image has no /${DEFAULT_DIR} directory (looked in ${looked}); set path`, err);
  }
  const names = await readdir(path.join(base, ...dir));
  const [first, ...rest] = names.sort();
  if (first === undefined) throw fail(`no file in /${DEFAULT_DIR} of the image, no disk present`);
  if (rest.length > 0) {
    throw fail(`more than one file in /${DEFAULT_DIR} of the image (${names.join(', ')}); set path`);
  }
  try {
    return await givenPath(base, [...dir, first].join('/'), fail);
  } catch (err) {
    throw fail(`/${DEFAULT_DIR}/${first} is not a file inside the image`, err);
  }
}

/** The components, below `base`, of the image's disk file (no symlink among them). */
export function containerDiskFile(base: string, p: string, fail: DiskFileFailure): Promise<string[]> {
  return p === '' ? onlyFile(base, fail) : givenPath(base, p, fail);
}
