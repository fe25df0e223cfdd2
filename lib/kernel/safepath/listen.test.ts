import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { lstat, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenUnixSocket, UnsafePathError } from './index.ts';

let dir = '';
const servers: Server[] = [];

function server(): Server {
  const s = createServer((c) => c.end('answer'));
  servers.push(s);
  return s;
}

function answer(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(path);
    let text = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => (text += d));
    c.once('end', () => {
      resolve(text);
    });
    c.once('error', reject);
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'safepath-listen-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

describe('listenUnixSocket', () => {
  it('creates the socket 0600 whatever the umask, and leaves the umask as it was', async () => {
    const before = process.umask(0);
    try {
      await listenUnixSocket(server(), { path: join(dir, 'api.sock') });
      expect(process.umask(0)).toBe(0);
    } finally {
      process.umask(before);
    }
    const st = await stat(join(dir, 'api.sock'));
    expect([st.isSocket(), st.mode & 0o777, st.uid]).toEqual([true, 0o600, process.getuid?.()]);
    expect(await answer(join(dir, 'api.sock'))).toBe('answer');
  });

  it('gives the socket a group and 0660 when asked', async () => {
    await listenUnixSocket(server(), { path: join(dir, 'api.sock'), mode: 0o660, gid: 4242 });
    const st = await stat(join(dir, 'api.sock'));
    expect([st.mode & 0o777, st.gid]).toEqual([0o660, 4242]);
  });

  it('replaces a stale socket left by an earlier run', async () => {
    const old = server();
    await new Promise<void>((resolve) => old.listen(join(dir, 'old.sock'), resolve));
    await rename(join(dir, 'old.sock'), join(dir, 'api.sock'));
    await new Promise((resolve) => old.close(resolve));
    expect((await lstat(join(dir, 'api.sock'))).isSocket()).toBe(true);
    await listenUnixSocket(server(), { path: join(dir, 'api.sock') });
    expect(await answer(join(dir, 'api.sock'))).toBe('answer');
  });

  it.each([
    ['a symlink to a file elsewhere', 'symlink'],
    ['a regular file', 'wrong-kind'],
  ])('refuses %s in the place of the socket and leaves it as it was', async (what, reason) => {
    const target = join(dir, 'precious');
    await writeFile(target, 'keep');
    if (what.startsWith('a symlink')) await symlink(target, join(dir, 'api.sock'));
    else await writeFile(join(dir, 'api.sock'), 'keep');
    const err = await listenUnixSocket(server(), { path: join(dir, 'api.sock'), mode: 0o666 }).catch(
      (e: unknown) => e,
    );
    expect(err instanceof UnsafePathError && err.reason).toBe(reason);
    expect(await readFile(target, 'utf8')).toBe('keep');
    expect((await stat(target)).mode & 0o777).not.toBe(0o666);
  });

  it('refuses a relative path and one over the sun_path limit, naming the limit', async () => {
    await expect(listenUnixSocket(server(), { path: 'api.sock' })).rejects.toThrow(/must be absolute/);
    await expect(listenUnixSocket(server(), { path: join(dir, 'x'.repeat(120)) })).rejects.toThrow(
      /over the 107-byte limit/,
    );
  });
});
