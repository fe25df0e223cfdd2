import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { lstat, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openBeneath } from '../kernel/safepath/index.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { failed, newCmdServer, ok } from './cmd-server.ts';
import { newCmdClient } from './cmd-client.ts';
import { UNIX_PATH_MAX, checkSocketPath, listenUnix, openSocket, unixTarget } from './listen.ts';
import { serve, tempRoot, type TempRoot } from './testing/servers.ts';

describe('checkSocketPath', () => {
  it.each([
    ['/' + 'a'.repeat(UNIX_PATH_MAX - 1), true],
    ['/' + 'a'.repeat(UNIX_PATH_MAX), false],
    // 53 two-byte characters: 107 bytes -> fits; one more -> 109 bytes.
    ['/' + 'é'.repeat(53), true],
    ['/' + 'é'.repeat(54), false],
    ['relative.sock', false],
  ])('%s fits: %s', (p, fits) => {
    if (fits) {
      expect(() => {
        checkSocketPath(p);
      }).not.toThrow();
    } else {
      expect(() => {
        checkSocketPath(p);
      }).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
    }
  });

  it('names the limit in the message', () => {
    expect(() => {
      checkSocketPath('/' + 'x'.repeat(200));
    }).toThrow(/201 bytes, over the 107-byte limit/);
  });

  it('builds unix:///abs targets', () => {
    expect(unixTarget('/run/x.sock')).toBe('unix:///run/x.sock');
  });
});

describe('listenUnix', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = await tempRoot();
  });
  afterEach(async () => {
    await root.cleanup();
  });

  const pingServer = (): ReturnType<typeof newCmdServer> =>
    newCmdServer({ ping: () => Promise.resolve(ok()) });

  it('creates the missing parent directories', async () => {
    const sock = path.join(root.dir, 'a/b/c/cmd.sock');
    const s = await serve(pingServer(), sock);
    try {
      expect((await lstat(sock)).isSocket()).toBe(true);
    } finally {
      await s.stop();
    }
  });

  it('replaces a stale socket left by a dead process', async () => {
    const sock = path.join(root.dir, 'stale.sock');
    // A child binds the socket and exits without unlinking it, as a crashed launcher would.
    const script = `require('net').createServer().listen(process.argv[1], () => process.exit(0))`;
    execFileSync(process.execPath, ['-e', script, sock]);
    expect((await lstat(sock)).isSocket()).toBe(true);

    const s = await serve(pingServer(), sock);
    const client = await newCmdClient(sock);
    try {
      expect(await client.ping()).toEqual({ success: true, message: '' });
    } finally {
      client.close();
      await s.stop();
    }
  });

  it('refuses to delete a file that is not a socket', async () => {
    const file = path.join(root.dir, 'data.txt');
    await writeFile(file, 'keep me');
    await expect(listenUnix(newCmdServer({}), file)).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
    expect(await readFile(file, 'utf8')).toBe('keep me');
  });

  it('rejects a socket path over the limit before touching the file system', async () => {
    const long = path.join(root.dir, 'd'.repeat(60), 'e'.repeat(60), 'x.sock');
    await expect(listenUnix(newCmdServer({}), long)).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: expect.stringContaining('107-byte limit'),
    });
    await expect(lstat(path.dirname(long))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('serves again on the same path after a restart', async () => {
    const sock = path.join(root.dir, 'again.sock');
    const first = await serve(newCmdServer({ ping: () => Promise.resolve(failed('first')) }), sock);
    await first.stop();
    const second = await serve(newCmdServer({ ping: () => Promise.resolve(failed('second')) }), sock);
    const client = await newCmdClient(sock);
    try {
      expect(await client.ping()).toEqual({ success: false, message: 'second' });
    } finally {
      client.close();
      await second.stop();
    }
  });
});

describe('openSocket and the cmd client dial', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = await tempRoot();
  });
  afterEach(async () => {
    await root.cleanup();
  });

  it('reaches a socket whose path is over the limit through its handle, closed with the client', async () => {
    // As a node sees a launcher's socket: deep inside the kubelet's pods dir.
    const rel = ['pods', 'p'.repeat(40), 'volumes', 'kubernetes.io~empty-dir', 'sockets'];
    const dir = path.join(root.dir, ...rel);
    mkdirSync(dir, { recursive: true });
    const long = path.join(dir, 'launcher-sock');
    expect(Buffer.byteLength(long)).toBeGreaterThan(UNIX_PATH_MAX);
    // Bound through the directory's handle, which stays open while the server listens.
    const d = await openBeneath(root.dir, rel, ['directory']);
    const s = await serve(newCmdServer({ ping: () => Promise.resolve(ok()) }), `${d.procPath}/launcher-sock`);
    expect(readdirSync(dir)).toEqual(['launcher-sock']);
    const fdsBefore = readdirSync('/proc/self/fd').length;
    try {
      for (const at of [long, { root: root.dir, rel: [...rel, 'launcher-sock'] }]) {
        const client = await newCmdClient(at);
        expect(await client.ping()).toEqual({ success: true, message: '' });
        client.close();
      }
    } finally {
      await s.stop();
      await d.close();
    }
    await waitFor(() => readdirSync('/proc/self/fd').length <= fdsBefore, 'the socket handles closed');
  });

  it('refuses a symlink planted at the socket path: the socket it names never gets a connection', async () => {
    const hostDir = await tempRoot();
    let connections = 0;
    const host = createServer((c) => {
      connections++;
      c.destroy();
    });
    await new Promise<void>((resolve) => host.listen(path.join(hostDir.dir, 'host.sock'), resolve));
    mkdirSync(path.join(root.dir, 'sockets'));
    await symlink(path.join(hostDir.dir, 'host.sock'), path.join(root.dir, 'sockets/launcher-sock'));
    try {
      for (const at of [
        path.join(root.dir, 'sockets/launcher-sock'),
        { root: root.dir, rel: ['sockets', 'launcher-sock'] },
      ])
        await expect(newCmdClient(at)).rejects.toMatchObject({
          code: 'KV_ERR_UNSAFE_PATH',
          reason: 'symlink',
          message: `${path.join(root.dir, 'sockets/launcher-sock')} is a symbolic link`,
        });
      // A symlinked directory below the root is refused as well.
      await symlink(path.join(root.dir, 'sockets'), path.join(root.dir, 'linked'));
      await expect(newCmdClient({ root: root.dir, rel: ['linked', 'launcher-sock'] })).rejects.toMatchObject({
        reason: 'symlink',
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(connections).toBe(0);
    } finally {
      host.close();
      await hostDir.cleanup();
    }
  });

  it('says what is missing, or what is there instead of a socket', async () => {
    await writeFile(path.join(root.dir, 'file'), 'x');
    await expect(openSocket(path.join(root.dir, 'none'))).rejects.toMatchObject({ reason: 'not-found' });
    await expect(openSocket({ root: root.dir, rel: ['file'] })).rejects.toMatchObject({
      reason: 'wrong-kind',
      message: `${path.join(root.dir, 'file')} is a regular file, not a unix socket`,
    });
    await expect(openSocket('relative.sock')).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
  });
});
