import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  mkdirBeneath,
  openBeneath,
  replaceFileIn,
  resolveBeneath,
  resolveLinks,
  UnsafePathError,
  walkBeneath,
  withHandle,
} from './index.ts';

let root = '';
let outside = '';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'safepath-tree-'));
  outside = await mkdtemp(join(tmpdir(), 'safepath-tree-outside-'));
  await writeFile(join(outside, 'secret'), 'host file', { mode: 0o640 });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof UnsafePathError ? err.reason : `other: ${String(err)}`;
  }
}

/** What an outside file is: it must stay exactly so. */
async function fingerprint(p: string): Promise<[string, number, number, number]> {
  const st = await stat(p);
  return [await readFile(p, 'utf8'), st.uid, st.gid, st.mode & 0o7777];
}

describe('mkdirBeneath', () => {
  it('makes the missing directories and opens the last one', async () => {
    await mkdir(join(root, 'a'));
    await withHandle(openBeneath(root, '', ['directory']), async (top) => {
      await withHandle(mkdirBeneath(top, 'a/b/c', 0o750), async (c) => {
        expect(c.kind).toBe('directory');
        await writeFile(`${c.procPath}/f`, 'x');
      });
    });
    expect(await readFile(join(root, 'a/b/c/f'), 'utf8')).toBe('x');
    expect((await stat(join(root, 'a/b'))).mode & 0o777).toBe(0o750);
  });

  it.each([
    ['a symlink to a directory outside', async (): Promise<void> => symlink(outside, join(root, 'a'))],
    ['a dangling symlink', async (): Promise<void> => symlink(join(outside, 'new'), join(root, 'a'))],
    ['a file', async (): Promise<void> => writeFile(join(root, 'a'), '')],
  ])('refuses %s on the way and makes nothing outside', async (_what, plant) => {
    await plant();
    const got = await withHandle(openBeneath(root, '', ['directory']), (top) =>
      reason(mkdirBeneath(top, 'a/b').then((h) => h.close())),
    );
    expect(['symlink', 'wrong-kind']).toContain(got);
    expect(await readdir(outside)).toEqual(['secret']);
  });
});

describe('replaceFileIn', () => {
  it('replaces a planted symlink instead of writing through it', async () => {
    const before = await fingerprint(join(outside, 'secret'));
    await symlink(join(outside, 'secret'), join(root, 'conf'));
    await withHandle(openBeneath(root, '', ['directory']), (top) =>
      replaceFileIn(top, 'conf', 'mine\n', 0o644),
    );
    expect(await fingerprint(join(outside, 'secret'))).toEqual(before);
    expect((await lstat(join(root, 'conf'))).isFile()).toBe(true);
    expect(await readFile(join(root, 'conf'), 'utf8')).toBe('mine\n');
    expect((await stat(join(root, 'conf'))).mode & 0o777).toBe(0o644);
    expect(await readdir(root)).toEqual(['conf']);
  });
});

describe('walkBeneath', () => {
  it('visits directories and files, parents first, and never a symlink or what it points to', async () => {
    await mkdir(join(root, 'd/e'), { recursive: true });
    await writeFile(join(root, 'd/e/f'), '');
    await symlink(join(outside, 'secret'), join(root, 'd/link'));
    await symlink(outside, join(root, 'd/e/dirlink'));
    const seen: string[] = [];
    await withHandle(openBeneath(root, '', ['directory']), (top) =>
      walkBeneath(top, async (h) => {
        seen.push(h.path.slice(root.length) || '/');
        await h.chown(65534, 65534);
      }),
    );
    expect(seen.sort()).toEqual(['/', '/d', '/d/e', '/d/e/f']);
    expect((await stat(join(root, 'd/e/f'))).uid).toBe(65534);
    expect((await stat(join(outside, 'secret'))).uid).toBe(process.getuid?.());
    expect((await stat(outside)).uid).toBe(process.getuid?.());
    expect(await readlink(join(root, 'd/link'))).toBe(join(outside, 'secret'));
  });
});

describe('resolveLinks', () => {
  // A tree as a map: path → symlink target; every other path named exists and is no link.
  const tree: Record<string, string> = {
    'disk/abs': '/images/real.img',
    'disk/rel': '../images/real.img',
    'disk/up': '../../../../images/real.img',
    'disk/dir': '/images',
    'loop/a': '/loop/b',
    'loop/b': '/loop/a',
  };
  const readLinkAt = (parts: readonly string[]): Promise<string | undefined> =>
    Promise.resolve(tree[parts.join('/')]);

  it.each([
    ['a plain path', 'images/real.img', 'images/real.img'],
    ['a leading slash and dots', '/./images//real.img', 'images/real.img'],
    ['an absolute link, taken from the root', 'disk/abs', 'images/real.img'],
    ['a relative link', 'disk/rel', 'images/real.img'],
    ['dot-dots that would climb out', 'disk/up', 'images/real.img'],
    ['a link to a directory on the way', 'disk/dir/real.img', 'images/real.img'],
    ['dot-dot in the given path', '../../etc/shadow', 'etc/shadow'],
  ])('%s: %s → %s', async (_what, rel, want) => {
    expect((await resolveLinks(rel, readLinkAt)).join('/')).toBe(want);
  });

  it('gives up on a symlink loop', async () => {
    expect(await reason(resolveLinks('loop/a', readLinkAt))).toBe('symlink');
  });
});

describe('resolveBeneath', () => {
  it('keeps an absolute link inside the tree, and refuses what is only outside', async () => {
    await mkdir(join(root, 'disk'));
    await mkdir(join(root, 'images'));
    await writeFile(join(root, 'images/real.img'), 'inside');
    await symlink('/images/real.img', join(root, 'disk/disk.img'));
    await symlink(join(outside, 'secret'), join(root, 'disk/host.img'));
    expect(await resolveBeneath(root, 'disk/disk.img')).toEqual({
      parts: ['images', 'real.img'],
      kind: 'file',
    });
    // The host path `<outside>/secret` does not exist inside the tree.
    expect(await reason(resolveBeneath(root, 'disk/host.img'))).toBe('not-found');
  });
});
