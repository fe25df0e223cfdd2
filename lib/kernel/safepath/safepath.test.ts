import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { constants } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../clock.ts';
import {
  bindMount,
  connectBeneath,
  isMountPoint,
  openBeneath,
  unmountLazy,
  UnsafePathError,
  withHandle,
} from './index.ts';

let root = '';
let outside = '';
const servers: Server[] = [];

function listen(path: string): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer((c) => c.end('answer'));
    servers.push(s);
    s.listen(path, () => {
      resolve(s);
    });
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'safepath-'));
  outside = await mkdtemp(join(tmpdir(), 'safepath-outside-'));
  await writeFile(join(outside, 'secret'), 'host file');
  await listen(join(outside, 'host.sock'));
  await mkdir(join(root, 'a/b'), { recursive: true });
  await writeFile(join(root, 'a/b/disk.img'), 'disk');
  await symlink(join(outside, 'secret'), join(root, 'a/b/link.img'));
  await symlink(outside, join(root, 'a/dirlink'));
  await symlink('b', join(root, 'a/relative'));
  await listen(join(root, 'a/b/good.sock'));
  await symlink(join(outside, 'host.sock'), join(root, 'a/b/planted.sock'));
});

afterAll(async () => {
  for (const s of servers) s.close();
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'opened';
  } catch (err) {
    return err instanceof UnsafePathError ? err.reason : `other: ${String(err)}`;
  }
}

describe('openBeneath', () => {
  it.each([
    ['a regular file', 'a/b/disk.img', ['file'], 'opened'],
    ['a symlink as the last component', 'a/b/link.img', ['file'], 'symlink'],
    ['an absolute symlink on the way', 'a/dirlink/secret', ['file'], 'symlink'],
    ['a relative symlink on the way', 'a/relative/disk.img', ['file'], 'symlink'],
    ['a missing entry', 'a/b/none.img', ['file'], 'not-found'],
    ['a directory where a file is wanted', 'a/b', ['file'], 'wrong-kind'],
    ['a file where a directory is needed on the way', 'a/b/disk.img/x', ['file'], 'wrong-kind'],
    ['a socket where a file or device is wanted', 'a/b/good.sock', ['file', 'block'], 'wrong-kind'],
    ['a socket', 'a/b/good.sock', ['socket'], 'opened'],
    ['a dot-dot component', 'a/../a/b/disk.img', ['file'], 'bad-name'],
    ['an empty component', 'a//b/disk.img', ['file'], 'bad-name'],
    ['an absolute relative path', '/a/b/disk.img', ['file'], 'bad-name'],
  ] as const)('%s: %s → %s', async (_what, rel, expect_, want) => {
    expect(await reason(openBeneath(root, rel, expect_).then((h) => h.close()))).toBe(want);
  });

  it('trusts the root itself, a symlink included', async () => {
    const viaLink = join(outside, 'root-link');
    await symlink(root, viaLink);
    await withHandle(openBeneath(viaLink, 'a/b/disk.img', ['file']), async (h) => {
      const f = await h.reopen(constants.O_RDONLY);
      expect((await f.readFile()).toString()).toBe('disk');
      await f.close();
    });
  });

  it('acts on the inode opened even after the path is swapped for a symlink', async () => {
    await writeFile(join(root, 'a/b/swap.img'), 'mine');
    await withHandle(openBeneath(root, 'a/b/swap.img', ['file']), async (h) => {
      await rm(join(root, 'a/b/swap.img'));
      await symlink(join(outside, 'secret'), join(root, 'a/b/swap.img'));
      await h.chmod(0o600);
      await h.chown(107, 107);
    });
    const host = await stat(join(outside, 'secret'));
    expect([host.uid, host.mode & 0o777]).not.toEqual([107, 0o600]);
    expect(host.uid).toBe(process.getuid?.());
  });
});

describe('createFile', () => {
  it('creates a new file, refuses an existing one and never writes through a planted symlink', async () => {
    const dir = await openBeneath(root, 'a/b', ['directory']);
    try {
      await (await dir.createFile('new.img', 0o640)).close();
      expect((await stat(join(root, 'a/b/new.img'))).mode & 0o777).toBe(0o640);
      expect(await reason(dir.createFile('new.img', 0o640))).toBe('exists');
      expect(await reason(dir.createFile('new.img', 0o640, { reuse: true }).then((h) => h.close()))).toBe(
        'opened',
      );
      expect(await reason(dir.createFile('link.img', 0o640))).toBe('exists');
      expect(await reason(dir.createFile('link.img', 0o640, { reuse: true }))).toBe('symlink');
      expect(await readFile(join(outside, 'secret'), 'utf8')).toBe('host file');
      expect((await lstat(join(root, 'a/b/link.img'))).isSymbolicLink()).toBe(true);
    } finally {
      await dir.close();
    }
  });

  it('reports whether an entry exists without following it', async () => {
    await withHandle(openBeneath(root, 'a/b', ['directory']), async (dir) => {
      expect(await dir.has('disk.img')).toBe(true);
      expect(await dir.has('link.img')).toBe(true);
      expect(await dir.has('none')).toBe(false);
    });
  });
});

describe('connectBeneath', () => {
  it('connects to a socket, and refuses a symlink planted to a host socket', async () => {
    const s = await connectBeneath(root, 'a/b/good.sock', { clock: realClock, timeoutMs: 2000 });
    const got = await new Promise<string>((resolve) =>
      s.once('data', (b: Buffer) => {
        resolve(b.toString());
      }),
    );
    s.destroy();
    expect(got).toBe('answer');
    expect(
      await reason(connectBeneath(root, 'a/b/planted.sock', { clock: realClock, timeoutMs: 2000 })),
    ).toBe('symlink');
  });
});

describe('bindMount', () => {
  it('mounts by descriptor, tells a mount point, and unmounts by the mount handle', async () => {
    await writeFile(join(root, 'a/b/target.img'), '');
    const dir = await openBeneath(root, 'a/b', ['directory']);
    try {
      await withHandle(dir.open('disk.img', ['file']), async (source) => {
        await withHandle(dir.open('target.img', ['file']), async (target) => {
          await bindMount(source, target);
        });
      });
      expect(await readFile(join(root, 'a/b/target.img'), 'utf8')).toBe('disk');
      await withHandle(dir.open('target.img', ['file']), async (mounted) => {
        expect(await isMountPoint(dir, mounted)).toBe(true);
        await unmountLazy(mounted);
      });
      await withHandle(dir.open('target.img', ['file']), async (plain) => {
        expect(await isMountPoint(dir, plain)).toBe(false);
      });
      expect(await readFile(join(root, 'a/b/target.img'), 'utf8')).toBe('');
    } finally {
      await dir.close();
    }
  });
});
