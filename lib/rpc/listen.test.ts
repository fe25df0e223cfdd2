import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { failed, newCmdServer, ok } from './cmd-server.ts';
import { newCmdClient } from './cmd-client.ts';
import { UNIX_PATH_MAX, checkSocketPath, dialPath, listenUnix, unixTarget } from './listen.ts';
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

describe('dialPath', () => {
  let root: TempRoot;
  beforeEach(async () => {
    root = await tempRoot();
  });
  afterEach(async () => {
    await root.cleanup();
  });

  it('keeps a path that fits', () => {
    const d = dialPath('/run/x.sock');
    expect(d.path).toBe('/run/x.sock');
    d.release();
  });

  it('reaches a socket whose path is over the limit through its directory, until released', async () => {
    // As a node sees a launcher's socket: deep inside the kubelet's pods dir.
    const dir = path.join(root.dir, 'pods', 'p'.repeat(40), 'volumes/kubernetes.io~empty-dir/sockets');
    mkdirSync(dir, { recursive: true });
    const long = path.join(dir, 'launcher-sock');
    expect(Buffer.byteLength(long)).toBeGreaterThan(UNIX_PATH_MAX);
    const bind = dialPath(long);
    const s = await serve(newCmdServer({ ping: () => Promise.resolve(ok()) }), bind.path);
    bind.release();
    expect(readdirSync(dir)).toEqual(['launcher-sock']);
    const fdsBefore = readdirSync('/proc/self/fd').length;
    const client = await newCmdClient(long);
    try {
      expect(await client.ping()).toEqual({ success: true, message: '' });
    } finally {
      client.close();
      await s.stop();
    }
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fdsBefore);
  });

  it('says which directory it could not open', () => {
    const long = path.join('/nonexistent', 'x'.repeat(120), 'sock');
    expect(() => dialPath(long)).toThrow(expect.objectContaining({ code: 'KV_ERR_TRANSPORT' }));
    expect(existsSync('/nonexistent')).toBe(false);
  });
});
