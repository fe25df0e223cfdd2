/**
 * A path inside a tree that was built elsewhere (a container image mounted as a volume), its symlinks resolved
 * as they would be inside that tree: an absolute link starts again at the tree's root, and `..` never climbs
 * above it (kubevirt pkg/safepath JoinAndResolveWithRelativeRoot). The result names no symlink and lies
 * below the root, so whatever later opens it by path reaches a file of the tree, not one of the host.
 */
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { openBeneath, UnsafePathError, type PathKind } from './safepath.ts';

/** KubeVirt's bound on the path elements one resolution may look at (links included). */
const MAX_PATH_ELEMENTS = 256;

/** The target of the symlink at `parts`, or undefined when it is no symlink; rejects when it is missing. */
export type ReadLinkAt = (parts: readonly string[]) => Promise<string | undefined>;

/** Resolves `rel` with `readLinkAt`, never above the root; the components of the result. */
export async function resolveLinks(rel: string, readLinkAt: ReadLinkAt): Promise<string[]> {
  const todo: string[] = [];
  let seen = 0;
  const push = (p: string): void => {
    const parts = p.split('/').filter((x) => x !== '' && x !== '.');
    seen += parts.length;
    if (seen > MAX_PATH_ELEMENTS)
      throw new UnsafePathError(
        'symlink',
        rel,
        `${rel}: more than ${MAX_PATH_ELEMENTS} path elements evaluated (a symlink loop?)`,
      );
    todo.push(...parts.reverse());
  };
  push(rel);
  let current: string[] = [];
  for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
    if (name === '..') {
      current.pop();
      continue;
    }
    const next = [...current, name];
    const link = await readLinkAt(next);
    if (link === undefined) {
      current = next;
      continue;
    }
    if (link.startsWith('/')) current = [];
    push(link);
  }
  return current;
}

/**
 * The components of `rel` below the trusted `root`, with every symlink resolved relative to `root`, and the
 * kind of what they name (checked by opening it without following any symlink).
 */
export async function resolveBeneath(
  root: string,
  rel: string,
): Promise<{ parts: string[]; kind: PathKind }> {
  const readLinkAt: ReadLinkAt = async (parts) => {
    const p = path.join(root, ...parts);
    try {
      return (await lstat(p)).isSymbolicLink() ? await readlink(p) : undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR')
        throw new UnsafePathError('not-found', p, `${p} does not exist`, { cause: err });
      throw new UnsafePathError('io', p, `${p}: ${code ?? String(err)}`, { cause: err });
    }
  };
  const parts = await resolveLinks(rel, readLinkAt);
  const h = await openBeneath(root, parts, ['directory', 'file', 'block', 'socket']);
  await h.close();
  return { parts, kind: h.kind };
}
