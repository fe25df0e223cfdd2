import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../clock.ts';
import { connectBeneath, listenBeneath, UnsafePathError, type ListeningBeneath } from './index.ts';

let root = '';
let outside = '';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'safepath-listen-'));
  outside = await mkdtemp(join(tmpdir(), 'safepath-listen-outside-'));
  await mkdir(join(root, 'd'));
  await writeFile(join(outside, 'secret'), 'host file', { mode: 0o600 });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** A net server answering 'hi', bound by listenBeneath at `rel`. */
function listenAt(rel: string | readonly string[], mode = 0o666): Promise<ListeningBeneath> {
  return listenBeneath(root, rel, {
    mode,
    listen: (at) => {
      const server: Server = createServer((c) => c.end('hi'));
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(at, () => {
          resolve(
            () =>
              new Promise<void>((done) =>
                server.close(() => {
                  done();
                }),
              ),
          );
        });
      });
    },
  });
}

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'listening';
  } catch (err) {
    return err instanceof UnsafePathError ? err.reason : `other: ${String(err)}`;
  }
}

describe('listenBeneath', () => {
  it('binds below the root with the mode asked for, and the socket goes with the server', async () => {
    const l = await listenAt('d/s.sock');
    const st = await lstat(join(root, 'd/s.sock'));
    expect([st.isSocket(), st.mode & 0o777]).toEqual([true, 0o666]);
    const got = await new Promise<string>((resolve) => {
      createConnection(join(root, 'd/s.sock')).once('data', (b: Buffer) => {
        resolve(b.toString());
      });
    });
    expect(got).toBe('hi');
    expect(l.path).toBe(join(root, 'd/s.sock'));
    await l.close();
    await expect(lstat(join(root, 'd/s.sock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('replaces a stale socket, refuses a symlink or a file there and leaves it alone', async () => {
    const script = `require('net').createServer().listen(process.argv[1], () => process.exit(0))`;
    execFileSync(process.execPath, ['-e', script, join(root, 'd/stale.sock')]);
    await (await listenAt('d/stale.sock', 0o600)).close();
    await symlink(join(outside, 'secret'), join(root, 'd/link.sock'));
    await writeFile(join(root, 'd/file.sock'), 'data');
    expect(await reason(listenAt('d/link.sock'))).toBe('symlink');
    expect(await reason(listenAt('d/file.sock'))).toBe('wrong-kind');
    expect((await lstat(join(root, 'd/link.sock'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(root, 'd/file.sock'), 'utf8')).toBe('data');
    expect((await stat(join(outside, 'secret'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a symlinked directory on the way, and an empty path', async () => {
    await symlink(outside, join(root, 'dirlink'));
    expect(await reason(listenAt('dirlink/s.sock'))).toBe('symlink');
    expect(await reason(listenAt(''))).toBe('bad-name');
    await expect(lstat(join(outside, 's.sock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('connectBeneath', () => {
  it('hands over a socket an error without a listener of the caller cannot crash', async () => {
    const l = await listenAt('d/s.sock');
    const s = await connectBeneath(root, 'd/s.sock', { clock: realClock, timeoutMs: 2000 });
    expect(() => s.emit('error', new Error('late'))).not.toThrow();
    s.destroy();
    await l.close();
  });
});
