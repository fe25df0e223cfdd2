// listenUnix with a mode: the socket is private from the moment it exists, and still serves gRPC.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { newCmdClient } from './cmd-client.ts';
import { newCmdServer, ok } from './cmd-server.ts';
import { listenUnix, shutdownServer } from './listen.ts';
import { tempRoot, type TempRoot } from './testing/servers.ts';

describe('listenUnix with a mode', () => {
  let root: TempRoot;
  let umask = 0;
  beforeEach(async () => {
    root = await tempRoot();
    // The most permissive umask: without the mode the socket would be srwxrwxrwx.
    umask = process.umask(0);
  });
  afterEach(async () => {
    process.umask(umask);
    await root.cleanup();
  });

  it('makes the socket 0600 right away, serves calls, restores the umask and removes the socket at shutdown', async () => {
    const sock = path.join(root.dir, 'sockets/launcher-sock');
    const server = newCmdServer({ ping: () => Promise.resolve(ok()) });
    let mode: number | undefined;
    try {
      await listenUnix(server, sock, { mode: 0o600 });
      mode = (await lstat(sock)).mode;
      const client = await newCmdClient(sock);
      expect(await client.ping()).toEqual({ success: true, message: '' });
      client.close();
    } finally {
      await shutdownServer(server, 1000);
    }
    expect(mode).toBe(0o140600);
    expect(process.umask(0)).toBe(0);
    await expect(lstat(sock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('ends a connection still open after the grace period', async () => {
    const sock = path.join(root.dir, 'held.sock');
    const server = newCmdServer({ ping: () => Promise.resolve(ok()) });
    await listenUnix(server, sock, { mode: 0o600 });
    const client = await newCmdClient(sock);
    await client.ping();
    await shutdownServer(server, 200);
    client.close();
    await expect(lstat(sock)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
